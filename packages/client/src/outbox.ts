import { FrameWriter } from '@slipstream/protocol';
import type { TransportConnection } from '@slipstream/transport';
import { OutboundBufferFullError, ReconnectBufferFullError } from './errors.js';

/** Publishes are written once per event-loop turn, or as soon as this many bytes are pending. */
const WRITE_THRESHOLD = 64 * 1024;

const nextTurn: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

/**
 * A connection's outgoing frames, which outlive its sockets: while a socket is attached they go
 * out in one write per event-loop turn (or sooner once WRITE_THRESHOLD is pending), held back
 * while the socket pushes back; while none is, the writer is the reconnect buffer and keeps them
 * for the next one. Bounded by outboundBufSize while attached, reconnectBufSize otherwise.
 */
export class Outbox {
  /** Frames not yet handed to the socket; callers write into it, then call `written`. */
  readonly writer = new FrameWriter(64 * 1024);
  readonly #attachedLimit: number;
  readonly #detachedLimit: number;
  /** Most bytes the writer may hold. */
  #limit: number;
  #conn: TransportConnection | undefined;
  #writeScheduled = false;
  /** The socket reported back-pressure; writes wait for it to drain. */
  #blocked = false;

  constructor(limits: { outboundBufSize: number; reconnectBufSize: number }) {
    this.#attachedLimit = limits.outboundBufSize;
    this.#detachedLimit = limits.reconnectBufSize;
    this.#limit = this.#detachedLimit;
  }

  /** Throws unless `size` more bytes fit in the writer. */
  reserve(size: number): void {
    if (this.writer.length + size <= this.#limit) return;
    if (this.#conn) throw new OutboundBufferFullError(this.#limit);
    throw new ReconnectBufferFullError(this.#limit);
  }

  /** A publish was written: send now past the threshold, else at the end of this turn. */
  written(): void {
    if (this.writer.length >= WRITE_THRESHOLD) this.writeNow();
    else if (!this.#writeScheduled) this.schedule();
  }

  /** Writes what is pending at the end of this event-loop turn. */
  schedule(): void {
    if (this.#writeScheduled) return;
    this.#writeScheduled = true;
    nextTurn(this.#writeTurn);
  }

  readonly #writeTurn = () => {
    this.#writeScheduled = false;
    this.writeNow();
  };

  /** From now on frames go to `conn` (a session that completed its handshake). */
  attach(conn: TransportConnection): void {
    this.#conn = conn;
    this.#blocked = false;
    this.#limit = this.#attachedLimit;
  }

  /** The socket is gone: frames wait in the writer for the next one. */
  detach(): void {
    this.#conn = undefined;
    this.#limit = this.#detachedLimit;
  }

  /** The connection is closing: its socket gets everything pending, back-pressure or not. */
  sendRest(): void {
    if (this.#conn && this.writer.length > 0) this.#conn.send(this.writer.take());
  }

  /**
   * Hands pending frames to the socket unless it pushed back; while it does, frames keep
   * accumulating in the writer (bounded by outboundBufSize) and go out as one write on drain.
   */
  writeNow(): void {
    const conn = this.#conn;
    if (this.writer.length === 0 || !conn || this.#blocked) return;
    if (this.#sendPending(conn)) return;
    this.#blocked = true;
    void conn.drained().then(() => {
      if (this.#conn !== conn) return;
      this.#blocked = false;
      this.writeNow();
    });
  }

  /**
   * Hands the writer's bytes to the socket; returns false on back-pressure. Where the connection
   * says when it is done with them, the bytes go out without a copy and the writer's buffer is
   * reused: at 1 KiB per message that copy was a tenth of the publisher's CPU.
   */
  #sendPending(conn: TransportConnection): boolean {
    if (conn.pendingBytes === undefined) return conn.send(this.writer.take());
    let accepted = true;
    this.writer.writeTo((bytes) => {
      accepted = conn.send(bytes);
      return conn.pendingBytes === 0;
    });
    return accepted;
  }
}
