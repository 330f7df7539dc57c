import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { FrameWriter } from '@slipstream/protocol';
import { Backlog } from './backlog.js';
import { countTraffic } from './buffer-collection.js';
import { afterWait } from './timer-delay.js';

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

/** What a connection's outbound needs of the server. */
export interface OutboundHost {
  readonly flushQueue: FlushQueue;
  readonly stats: { slowConsumers: number };
  readonly logger: { warn(message: string): void };
  readonly options: { readonly maxPending: number; readonly writeDeadline: number };
}

/**
 * The outbound of one connection (client, leaf or route), as the server sets each up: a slow
 * consumer is counted, logged as nats-server logs it (`<label> - Slow Consumer Detected:
 * <reason>`, with the connection's label at that time) and closes the connection.
 */
export function connectionOutbound(
  socket: Socket,
  host: OutboundHost,
  connection: { readonly label: string; close(reason: string): void },
): Outbound {
  return new Outbound(socket, host.flushQueue, {
    maxPending: host.options.maxPending,
    writeDeadline: host.options.writeDeadline,
    slowConsumer: (reason) => {
      host.stats.slowConsumers++;
      host.logger.warn(`${connection.label} - Slow Consumer Detected: ${reason}`);
      connection.close(reason);
    },
  });
}

/** A new connection's buffer; it grows with traffic. */
const INITIAL_CAPACITY = 1024;
/** A writer grown past this is replaced once traffic falls off, so one burst does not pin its buffer. */
const RETAINED_CAPACITY = 64 * 1024;
/**
 * While the socket pushes back, frames move from the writer to the backlog in batches of this
 * size, so the writer (whose buffer only a garbage collection frees) stays small however far the
 * client falls behind.
 */
const SPILL_BYTES = 256 * 1024;

/**
 * A connection's outgoing bytes: frames accumulate in a FrameWriter and go out in one
 * socket.write per event-loop turn. When the socket pushes back (write returns false) nothing more
 * is written until 'drain'; frames keep accumulating in the backlog, bounded by maxPending, and a
 * write that stays blocked past the write deadline also marks a slow consumer. A connection cut
 * off gives its pending bytes back to the system at once (`dispose`).
 */
export class Outbound {
  writer = new FrameWriter(INITIAL_CAPACITY);
  /** Largest flush since `writer` was created: roughly its capacity. */
  #peak = 0;
  readonly #socket: Socket;
  readonly #plainTcp: boolean;
  readonly #queue: FlushQueue;
  readonly #options: OutboundOptions;
  /** Frames waiting behind a socket that pushed back, in order before those in `writer`. */
  readonly #backlog = new Backlog();
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
    return this.writer.length + this.#backlog.length + this.#socket.writableLength;
  }

  /** Call after appending frames to `writer`: schedules the flush, or reports a slow consumer. */
  queued(): void {
    if (this.#failed) return;
    const maxPending = this.#options.maxPending;
    if (
      this.writer.length + this.#backlog.length + this.#socketPendingAtMost > maxPending &&
      this.pendingBytes > maxPending
    ) {
      this.#fail('Slow Consumer (Pending Bytes)');
      return;
    }
    if (this.#blocked && this.writer.length >= SPILL_BYTES) this.#spill();
    if (!this.#queued) {
      this.#queued = true;
      this.#queue.add(this);
    }
  }

  /** Writes what is pending unless the socket is pushing back. */
  flush(): void {
    this.#queued = false;
    if (this.#blocked || this.#failed) return;
    const socket = this.#socket;
    let accepted = true;
    if (this.#backlog.length > 0) {
      // The writer's frames come after the backlog's: line them up behind it, then send chunks
      // until the socket pushes back again.
      this.#spill();
      while (accepted && this.#backlog.length > 0) accepted = this.#writeChunk();
    } else if (this.writer.length > 0) {
      accepted = this.#write();
    }
    this.#socketPendingAtMost = socket.writableLength;
    if (!accepted) {
      this.#blocked = true;
      afterWait(
        this.#options.writeDeadline,
        () => this.#fail('Slow Consumer (Write Deadline)'),
        (timer) => {
          this.#deadline = timer;
        },
      );
      socket.once('drain', this.#drained);
    }
  }

  /** Writes the writer's frames; returns false when the socket pushes back. */
  #write(): boolean {
    const size = this.writer.length;
    countTraffic(size);
    const writer = this.writer;
    if (size > this.#peak) this.#peak = size;
    else if (this.#peak > RETAINED_CAPACITY && size < this.#peak / 16) {
      this.writer = new FrameWriter(INITIAL_CAPACITY);
      this.#peak = 0;
    }
    const socket = this.#socket;
    if (socket.destroyed) {
      writer.writeTo(() => true); // nobody will read them: drop the bytes
      return true;
    }
    if (this.#plainTcp && socket.writableLength === 0) {
      // Without a copy: the kernel usually takes a write to an idle TCP socket at once, and then
      // the writer may reuse its buffer; otherwise the socket keeps the bytes and the writer
      // moves on to a new one.
      let accepted = true;
      writer.writeTo((bytes) => {
        accepted = socket.write(bytes);
        return socket.writableLength === 0;
      });
      return accepted;
    }
    // TLS finishes every write later, and a socket with a backlog queues it: both keep the
    // bytes, so hand over a copy of just those rather than the writer's whole buffer.
    return socket.write(writer.take());
  }

  /** Writes the backlog's oldest chunk, released once written; returns false when the socket pushes back. */
  #writeChunk(): boolean {
    const chunk = this.#backlog.shift()!;
    return this.#socket.write(chunk, () => Backlog.release(chunk));
  }

  /** Moves the writer's frames to the end of the backlog; the writer keeps its buffer. */
  #spill(): void {
    this.writer.writeTo((bytes) => {
      this.#backlog.append(bytes);
      return true;
    });
  }

  /** Hands everything pending to the socket regardless of back-pressure: the connection is ending. */
  flushFinal(): void {
    this.#queued = false;
    this.#blocked = false;
    this.#stopDeadline();
    const socket = this.#socket;
    if (socket.destroyed) return;
    if (this.#backlog.length > 0) {
      this.#spill();
      while (this.#backlog.length > 0) this.#writeChunk();
    } else if (this.writer.length > 0) {
      socket.write(this.writer.take());
    }
  }

  /**
   * Stops timers and lets go of every pending byte; the connection is gone. The backlog's memory
   * goes back to the system now; chunks already handed to the socket go when its writes end
   * (destroying the socket ends them).
   */
  dispose(): void {
    this.#failed = true;
    this.#stopDeadline();
    this.#socket.off('drain', this.#drained);
    this.#backlog.clear();
    this.writer = new FrameWriter(0);
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
