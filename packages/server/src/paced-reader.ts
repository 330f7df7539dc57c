import type { Socket } from 'node:net';

/**
 * What one connection may have parsed in one event-loop turn. Node reads up to 32 chunks of
 * 64 KiB from a busy socket in a row; routing that much to many subscribers held the loop, and so
 * every other client, for hundreds of milliseconds.
 */
const TURN_BYTES = 16 * 1024;

/**
 * Fair turns between connections: hands a connection's socket chunks to `parse` at most
 * TURN_BYTES at a time. The rest of a larger chunk waits for the next turn (setImmediate, after
 * the outbound flush scheduled by this turn's first frame and after every other socket's reads)
 * with the socket paused, so a flooding client gets its share of each turn, not all of it. The
 * parser is incremental: where the chunk is cut does not matter.
 */
export class PacedReader {
  readonly #parse: (bytes: Uint8Array) => void;
  /** The unparsed end of the last chunk, while the socket is paused for it. */
  #rest: Uint8Array | undefined;
  #socket: Socket | undefined;

  constructor(parse: (bytes: Uint8Array) => void) {
    this.#parse = parse;
  }

  /** Parses the chunk's first TURN_BYTES now and the rest in later turns. */
  read(socket: Socket, chunk: Uint8Array): void {
    if (chunk.length <= TURN_BYTES) {
      this.#parse(chunk);
      return;
    }
    this.#socket = socket;
    socket.pause();
    this.#parseTurn(chunk);
  }

  /** Forgets unparsed bytes: the connection is closed. */
  drop(): void {
    this.#rest = undefined;
  }

  #parseTurn(bytes: Uint8Array): void {
    this.#rest = bytes.subarray(TURN_BYTES);
    this.#parse(bytes.subarray(0, TURN_BYTES));
    setImmediate(this.#nextTurn);
  }

  readonly #nextTurn = (): void => {
    const rest = this.#rest;
    if (rest !== undefined && rest.length > TURN_BYTES) {
      this.#parseTurn(rest);
      return;
    }
    this.#rest = undefined;
    if (rest !== undefined) this.#parse(rest);
    // Resumed even after the connection closed: a socket ended by us must still read the peer's
    // FIN to close; with no 'data' listener left, further bytes are dropped.
    this.#socket?.resume();
  };
}
