import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import {
  constants,
  createDeflateRaw,
  createInflateRaw,
  type DeflateRaw,
  type InflateRaw,
} from 'node:zlib';
import type { CloseReason } from './errors.js';
import { closeStatusFor } from './websocket-close-status.js';
import { FrameReader, MAX_CONTROL_PAYLOAD, Opcode } from './websocket-frame-reader.js';

/** nats-server's wsCompressThreshold: smaller messages are not worth compressing. */
const COMPRESS_THRESHOLD = 64;
/**
 * Compressed input is inflated this much at a time, the next piece only once the protocol reader
 * took the output: deflate expands at most about 1032 times, so a hostile message of zeros costs a
 * few MiB at a time, never its whole inflated size.
 */
const INFLATE_PIECE = 4 * 1024;
/** RFC 7692 §7.2.2: the empty stored block a sender strips from each compressed message. */
const DEFLATE_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

const CLOSE_NORMAL = 1000;
const CLOSE_PROTOCOL_ERROR = 1002;
const CLOSE_INVALID_PAYLOAD = 1007;

export interface WebSocketConnectionOptions {
  /** permessage-deflate negotiated (no context takeover either way). */
  compression: boolean;
  /** The peer asked for unmasked frames (Nats-No-Masking). */
  unmasked: boolean;
  /** The peer broke the framing rules; the connection is being closed (log it). */
  onProtocolError(message: string): void;
}

/** What the readable side hands on, in the order the frames came. */
type Step =
  | { kind: 'data'; bytes: Uint8Array }
  | { kind: 'inflate'; bytes: Uint8Array; last: boolean }
  | { kind: 'end' }
  | { kind: 'error'; message: string };

/**
 * One WebSocket connection after the upgrade, as a byte stream with a socket's face: the readable
 * side is the NATS protocol the peer sent, each piece of a frame's payload handed on as it arrives
 * (inflated piece by piece when compressed), never a whole message held back; each write goes out
 * as one binary frame (compressed when negotiated and worth it). Pings are answered; a close frame
 * ends the readable side and is echoed when the writable side ends; a framing error is reported
 * as an 'error' (the connection then ends the stream, which sends a 1002 close frame after the
 * output already queued, as nats-server does).
 */
export class WebSocketConnection extends Duplex {
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly #socket: Socket;
  readonly #reader: FrameReader;
  readonly #options: WebSocketConnectionOptions;
  /** What waits behind an inflation in progress, to keep the order of the frames. */
  readonly #steps: Step[] = [];
  #inflater: InflateRaw | undefined;
  #inflating = false;
  #deflater: DeflateRaw | undefined;
  /** The readable side is over its high-water mark: read no more until `_read`. */
  #full = false;
  #socketPaused = false;
  /** The readable side has ended (a close frame, then the socket's end, both end it). */
  #ended = false;
  /** The close frame's payload to send when the writable side ends (default: 1000). */
  #closePayload: Uint8Array | undefined;

  constructor(socket: Socket, head: Uint8Array, options: WebSocketConnectionOptions) {
    // Destroyed when the socket closes (or by an explicit destroy), not when both sides have
    // ended: ending the writable side sends a close frame the socket must still get out.
    super({ autoDestroy: false });
    this.#socket = socket;
    this.#options = options;
    this.remoteAddress = socket.remoteAddress;
    this.remotePort = socket.remotePort;
    this.#reader = new FrameReader(
      {
        data: (bytes) => this.#enqueue({ kind: 'data', bytes }),
        compressed: (bytes, last) => this.#enqueueCompressed(bytes, last),
        control: (opcode, payload) => this.#control(opcode, payload),
        error: (message) => this.#protocolError(message, CLOSE_PROTOCOL_ERROR),
      },
      { compression: options.compression, masked: !options.unmasked },
    );
    socket.on('data', (chunk: Buffer) => this.#reader.read(chunk));
    socket.on('end', () => this.#enqueue({ kind: 'end' }));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => this.destroy());
    // Bytes that came with the upgrade request are read once the creator has had its turn to
    // listen: a framing error in them is reported as an 'error', which needs a listener.
    if (head.length > 0) process.nextTick(() => this.#reader.read(head));
  }

  /**
   * Says in the close frame why the server closes the connection (websocket-close-status.ts);
   * a close the peer began is echoed as it came.
   */
  closeFor(reason: CloseReason): void {
    this.#closePayload ??= closePayload(closeStatusFor(reason), reason);
  }

  /** Nagle's algorithm, as on a TCP socket. */
  setNoDelay(noDelay = true): this {
    this.#socket.setNoDelay(noDelay);
    return this;
  }

  override _read(): void {
    this.#full = false;
    this.#drain();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error) => void): void {
    if (this.#options.compression && chunk.length > COMPRESS_THRESHOLD) {
      this.#deflate(chunk, done);
      return;
    }
    this.#sendFrame(Opcode.Binary, chunk, false, done);
  }

  override _final(done: (error?: Error) => void): void {
    this.#sendClose(this.#closePayload ?? closePayload(CLOSE_NORMAL, ''));
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.#reader.stop();
    this.#steps.length = 0;
    this.#socket.destroy();
    this.#inflater?.close();
    this.#deflater?.close();
    done(error);
  }

  #enqueue(step: Step): void {
    this.#steps.push(step);
    this.#drain();
  }

  #enqueueCompressed(bytes: Uint8Array, last: boolean): void {
    for (let at = 0; at < bytes.length || (last && at === 0); at += INFLATE_PIECE) {
      let piece = bytes.subarray(at, at + INFLATE_PIECE);
      const ends = last && at + INFLATE_PIECE >= bytes.length;
      // The message's tail goes with its last piece: one inflation, not two, per small message.
      if (ends) piece = Buffer.concat([piece, DEFLATE_TAIL]);
      this.#steps.push({ kind: 'inflate', bytes: piece, last: ends });
    }
    this.#drain();
  }

  /** Hands on what can go now; the socket is read only while nothing waits. */
  #drain(): void {
    const steps = this.#steps;
    while (steps.length > 0 && !this.#inflating && !this.destroyed) {
      const step = steps[0]!;
      if (step.kind === 'inflate' && this.#full) break;
      steps.shift();
      switch (step.kind) {
        case 'data':
          this.#push(step.bytes);
          break;
        case 'inflate':
          this.#inflate(step.bytes, step.last);
          break;
        case 'end':
          if (!this.#ended) this.push(null);
          this.#ended = true;
          break;
        case 'error':
          this.emit('error', new Error(`websocket: ${step.message}`));
          break;
      }
    }
    const hold = steps.length > 0 || this.#full;
    if (hold !== this.#socketPaused) {
      this.#socketPaused = hold;
      if (hold) this.#socket.pause();
      else this.#socket.resume();
    }
  }

  #push(bytes: Uint8Array): void {
    if (!this.push(bytes)) this.#full = true;
  }

  #inflate(bytes: Uint8Array, last: boolean): void {
    const inflater = this.#inflater ?? this.#newInflater();
    this.#inflating = true;
    // The output comes as 'data' before the write's callback.
    inflater.write(bytes, (error) => {
      // An error goes to the inflater's 'error' handler.
      if (error || this.destroyed || !this.#inflating) return;
      this.#inflating = false;
      // No context takeover: each message starts a fresh stream.
      if (last) inflater.reset();
      this.#drain();
    });
  }

  #newInflater(): InflateRaw {
    const inflater = createInflateRaw({
      finishFlush: constants.Z_SYNC_FLUSH,
      flush: constants.Z_SYNC_FLUSH,
    });
    inflater.on('data', (bytes: Buffer) => this.#push(bytes));
    inflater.on('error', (error) => {
      this.#inflating = false;
      this.#steps.length = 0;
      this.#protocolError(`invalid compressed data: ${error.message}`, CLOSE_INVALID_PAYLOAD);
    });
    this.#inflater = inflater;
    return inflater;
  }

  #control(opcode: Opcode, payload: Uint8Array): void {
    if (opcode === Opcode.Ping) {
      this.#sendFrame(Opcode.Pong, payload, false);
      return;
    }
    if (opcode !== Opcode.Close) return;
    this.#reader.stop();
    if (payload.length === 1) {
      this.#protocolError('close frame payload of 1 byte', CLOSE_PROTOCOL_ERROR);
      return;
    }
    if (payload.length >= 2) {
      const status = (payload[0]! << 8) | payload[1]!;
      if (!validCloseStatus(status)) {
        this.#protocolError(`invalid close status ${status}`, CLOSE_PROTOCOL_ERROR);
        return;
      }
      if (!isUtf8(payload.subarray(2))) {
        this.#closePayload = closePayload(
          CLOSE_INVALID_PAYLOAD,
          'invalid utf8 body in close frame',
        );
        this.#enqueue({ kind: 'end' });
        return;
      }
    }
    // As nats-server: the peer's close is echoed once our output is written; no status, none.
    this.#closePayload = payload;
    this.#enqueue({ kind: 'end' });
  }

  #protocolError(message: string, status: number): void {
    this.#reader.stop();
    this.#closePayload = closePayload(status, message);
    this.#options.onProtocolError(message);
    this.#enqueue({ kind: 'error', message });
  }

  /** Writes one frame; `done` once the socket holds no reference to `payload`. */
  #sendFrame(
    opcode: Opcode,
    payload: Uint8Array,
    compressed: boolean,
    done?: (error?: Error) => void,
  ): void {
    const socket = this.#socket;
    if (socket.destroyed || socket.writableEnded) {
      done?.();
      return;
    }
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      done?.();
    };
    socket.cork();
    socket.write(frameHeader(opcode, payload.length, compressed));
    socket.write(payload, settle);
    socket.uncork();
    // The kernel took it all: the payload's buffer is free now, not at the write's callback,
    // so the outbound buffer can be reused at once (as on a TCP socket).
    if (socket.writableLength === 0) settle();
  }

  #deflate(chunk: Buffer, done: (error?: Error) => void): void {
    const deflater = this.#deflater ?? this.#newDeflater();
    const output: Buffer[] = [];
    const collect = (bytes: Buffer) => output.push(bytes);
    deflater.on('data', collect);
    deflater.write(chunk, (error) => {
      deflater.off('data', collect);
      // An error destroys the connection (the deflater's 'error' handler).
      if (error || this.destroyed) {
        done();
        return;
      }
      deflater.reset();
      const compressed = Buffer.concat(output);
      // Without the tail (RFC 7692 §7.2.1); the peer adds it back.
      this.#sendFrame(Opcode.Binary, compressed.subarray(0, compressed.length - 4), true, done);
    });
  }

  #newDeflater(): DeflateRaw {
    // nats-server compresses at its fastest level; every message on its own.
    const deflater = createDeflateRaw({ level: 1, flush: constants.Z_SYNC_FLUSH });
    deflater.on('error', (error) => this.destroy(error));
    this.#deflater = deflater;
    return deflater;
  }

  #sendClose(payload: Uint8Array): void {
    this.#sendFrame(Opcode.Close, payload, false);
    this.#socket.end();
  }
}

/** A server's frame header: FIN set, never masked (only clients mask). */
function frameHeader(opcode: Opcode, length: number, compressed: boolean): Buffer {
  const first = 0x80 | (compressed ? 0x40 : 0) | opcode;
  if (length < 126) return Buffer.from([first, length]);
  if (length < 0x10000) return Buffer.from([first, 126, length >>> 8, length & 0xff]);
  const header = Buffer.allocUnsafe(10);
  header[0] = first;
  header[1] = 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}

/** A close frame's payload: the status, then a reason cut to fit 125 bytes (as nats-server). */
function closePayload(status: number, reason: string): Buffer {
  let text = Buffer.from(reason);
  if (text.length > MAX_CONTROL_PAYLOAD - 2) {
    text = Buffer.concat([text.subarray(0, MAX_CONTROL_PAYLOAD - 5), Buffer.from('...')]);
  }
  const payload = Buffer.allocUnsafe(2 + text.length);
  payload.writeUInt16BE(status, 0);
  text.copy(payload, 2);
  return payload;
}

/** RFC 6455 §7.4: the statuses a peer may send (1004-1006 and 1015 are never sent). */
function validCloseStatus(status: number): boolean {
  return (
    (status >= 1000 && status <= 1014 && status !== 1004 && status !== 1005 && status !== 1006) ||
    (status >= 3000 && status <= 4999)
  );
}
