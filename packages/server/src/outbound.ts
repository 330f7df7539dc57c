import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { FrameWriter } from '@slipstream/protocol';

/**
 * Connections with frames waiting, flushed together once per event-loop turn. setImmediate runs
 * after the poll phase, so every socket chunk read in this turn has been routed before anything is
 * written: a burst of publishes fanning out to one subscriber becomes one write.
 */
export class FlushQueue {
  #dirty: Outbound[] = [];
  #scheduled = false;

  add(outbound: Outbound): void {
    this.#dirty.push(outbound);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flushAll);
    }
  }

  readonly #flushAll = (): void => {
    this.#scheduled = false;
    const dirty = this.#dirty;
    this.#dirty = [];
    for (const outbound of dirty) outbound.flush();
  };
}

export type SlowConsumerReason = 'Slow Consumer (Pending Bytes)' | 'Slow Consumer (Write Deadline)';

export interface OutboundOptions {
  maxPending: number;
  writeDeadline: number;
  /** Called once when the connection must be cut off; the owner closes it. */
  slowConsumer(reason: SlowConsumerReason): void;
}

/** A new connection's buffer; it grows with traffic. */
const INITIAL_CAPACITY = 1024;
/** A writer grown past this is replaced once traffic falls off, so one burst does not pin its buffer. */
const RETAINED_CAPACITY = 64 * 1024;

/**
 * A connection's outgoing bytes: frames accumulate in a FrameWriter and go out in one
 * socket.write per event-loop turn. When the socket pushes back (write returns false) nothing more
 * is written until 'drain'; frames keep accumulating, bounded by maxPending, and a write that stays
 * blocked past the write deadline also marks a slow consumer.
 */
export class Outbound {
  writer = new FrameWriter(INITIAL_CAPACITY);
  /** Largest flush since `writer` was created: roughly its capacity. */
  #peak = 0;
  readonly #socket: Socket;
  readonly #plainTcp: boolean;
  readonly #queue: FlushQueue;
  readonly #options: OutboundOptions;
  #queued = false;
  #blocked = false;
  #deadline: NodeJS.Timeout | undefined;
  #failed = false;
  /**
   * The socket's writableLength after our last write. It only shrinks until we write again, so it
   * bounds the real figure from above and spares reading it for every queued message.
   */
  #socketPendingAtMost = 0;

  constructor(socket: Socket, queue: FlushQueue, options: OutboundOptions) {
    this.#socket = socket;
    this.#plainTcp = !(socket instanceof TLSSocket);
    this.#queue = queue;
    this.#options = options;
  }

  /** Bytes accepted for this connection and not yet handed to the kernel. */
  get pendingBytes(): number {
    return this.writer.length + this.#socket.writableLength;
  }

  /** Call after appending frames to `writer`: schedules the flush, or reports a slow consumer. */
  queued(): void {
    if (this.#failed) return;
    const maxPending = this.#options.maxPending;
    if (
      this.writer.length + this.#socketPendingAtMost > maxPending &&
      this.pendingBytes > maxPending
    ) {
      this.#fail('Slow Consumer (Pending Bytes)');
      return;
    }
    if (!this.#queued) {
      this.#queued = true;
      this.#queue.add(this);
    }
  }

  /** Writes what is pending unless the socket is pushing back. */
  flush(): void {
    this.#queued = false;
    if (this.#blocked || this.#failed || this.writer.length === 0) return;
    const size = this.writer.length;
    const writer = this.writer;
    if (size > this.#peak) this.#peak = size;
    else if (this.#peak > RETAINED_CAPACITY && size < this.#peak / 16) {
      this.writer = new FrameWriter(INITIAL_CAPACITY);
      this.#peak = 0;
    }
    const socket = this.#socket;
    let accepted = true;
    if (socket.destroyed) {
      writer.writeTo(() => true); // nobody will read them: drop the bytes
    } else if (this.#plainTcp && socket.writableLength === 0) {
      // Without a copy: the kernel usually takes a write to an idle TCP socket at once, and then
      // the writer may reuse its buffer; otherwise the socket keeps the bytes and the writer
      // moves on to a new one.
      writer.writeTo((bytes) => {
        accepted = socket.write(bytes);
        return socket.writableLength === 0;
      });
    } else {
      // TLS finishes every write later, and a socket with a backlog queues it: both keep the
      // bytes, so hand over a copy of just those rather than the writer's whole buffer.
      accepted = socket.write(writer.take());
    }
    this.#socketPendingAtMost = socket.writableLength;
    if (!accepted) {
      this.#blocked = true;
      this.#deadline = setTimeout(
        () => this.#fail('Slow Consumer (Write Deadline)'),
        this.#options.writeDeadline,
      );
      this.#deadline.unref();
      this.#socket.once('drain', this.#drained);
    }
  }

  /** Hands everything pending to the socket regardless of back-pressure: the connection is ending. */
  flushFinal(): void {
    this.#queued = false;
    this.#blocked = false;
    this.#stopDeadline();
    if (this.writer.length > 0 && !this.#socket.destroyed) this.#socket.write(this.writer.take());
  }

  /** Stops timers; the connection is gone. */
  dispose(): void {
    this.#failed = true;
    this.#stopDeadline();
    this.#socket.off('drain', this.#drained);
  }

  readonly #drained = (): void => {
    this.#blocked = false;
    this.#stopDeadline();
    this.flush();
  };

  #stopDeadline(): void {
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }

  #fail(reason: SlowConsumerReason): void {
    if (this.#failed) return;
    this.dispose();
    this.#options.slowConsumer(reason);
  }
}
