import type { Socket } from 'node:net';

/**
 * What one connection may have parsed in one event-loop turn. Node reads up to 32 chunks of
 * 64 KiB from a busy socket in a row; routing that much to many subscribers held the loop, and so
 * every other client, for hundreds of milliseconds. Not less: each subscriber's output is written
 * once a turn, and with 16 KiB turns a subscriber of 1 KiB messages cost the server a third more
 * CPU a message in socket writes (tooling/bench/README.md, fair turns).
 */
export const TURN_BYTES = 64 * 1024;

let turn = 0;
let turnEnding = false;
const endTurn = (): void => {
  turn++;
  turnEnding = false;
};

/** The number of the event-loop turn we are in; it ends at the next check phase (setImmediate). */
function currentTurn(): number {
  if (!turnEnding) {
    turnEnding = true;
    setImmediate(endTurn);
  }
  return turn;
}

/**
 * Fair turns between connections: hands a connection's socket chunks to `parse` at most
 * TURN_BYTES a turn, counted across the chunks of that turn. The rest waits for the next turn
 * (setImmediate, after the outbound flush scheduled by this turn's first frame and after every
 * other socket's reads) with the socket paused, so a flooding client gets its share of each turn,
 * not all of it. The parser is incremental: where a chunk is cut does not matter.
 */
export class PacedReader {
  readonly #parse: (bytes: Uint8Array) => void;
  /** The unparsed end of the last chunk, while the socket is paused for it. */
  #rest: Uint8Array | undefined;
  #socket: Socket | undefined;
  #turn = -1;
  /** Bytes parsed in turn `#turn`. */
  #spent = 0;

  constructor(parse: (bytes: Uint8Array) => void) {
    this.#parse = parse;
  }

  /** Parses as much of the chunk as this turn leaves room for, the rest in later turns. */
  read(socket: Socket, chunk: Uint8Array): void {
    const room = this.#room();
    if (chunk.length <= room) {
      this.#spent += chunk.length;
      this.#parse(chunk);
      return;
    }
    this.#socket = socket;
    socket.pause();
    this.#parseSome(chunk, room);
  }

  /** Forgets unparsed bytes: the connection is closed. */
  drop(): void {
    this.#rest = undefined;
  }

  #room(): number {
    const now = currentTurn();
    if (now !== this.#turn) {
      this.#turn = now;
      this.#spent = 0;
    }
    return TURN_BYTES - this.#spent;
  }

  #parseSome(bytes: Uint8Array, room: number): void {
    this.#rest = bytes.subarray(room);
    this.#spent += room;
    if (room > 0) this.#parse(bytes.subarray(0, room));
    setImmediate(this.#nextTurn);
  }

  readonly #nextTurn = (): void => {
    const rest = this.#rest;
    if (rest !== undefined) {
      const room = this.#room();
      if (rest.length > room) {
        this.#parseSome(rest, room);
        return;
      }
      this.#rest = undefined;
      this.#spent += rest.length;
      this.#parse(rest);
    }
    // Resumed even after the connection closed: a socket ended by us must still read the peer's
    // FIN to close; with no 'data' listener left, further bytes are dropped.
    this.#socket?.resume();
  };
}
