/**
 * When a consumer's state goes to its stream's store. A change nobody waits for (a delivery, a
 * plain ack, a +WPI) is written at most LAZY_MS later, together with whatever else changed
 * meanwhile, as nats-server writes consumer state about ten times a second under load: a pull
 * consume acking each message otherwise encoded and wrote the whole state, in a commit of its
 * own, every event-loop turn. A change someone is told about (a double ack's confirmation) or
 * one that reshapes the state (a new consumer, a purge) is written in the current turn's
 * commit, with every lazy change before it. After SIGKILL a lazy change may be lost: its
 * messages are delivered again, never lost.
 */
import type { ConsumerStore } from '../store/message-store.js';

/** nats-server's consumer state flusher writes at most every 100 ms (filestore.go flushLoop). */
const LAZY_MS = 100;

export class ConsumerStateSaver {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ConsumerStore | undefined,
    private readonly name: string,
    private readonly encode: () => string,
  ) {}

  /** A change that may wait: written within LAZY_MS. */
  later(): void {
    if (!this.store || this.#timer) return;
    this.#timer = setTimeout(() => this.now(), LAZY_MS);
    // a stopping stream writes what is waiting itself (flush)
    this.#timer.unref();
  }

  /** Into the current turn's commit, with what was waiting. */
  now(): void {
    this.#cancel();
    this.store?.stateChanged(this.name, this.encode);
  }

  /** Writes a change still waiting: the stream closes, or its store is copied. */
  flush(): void {
    if (this.#timer) this.now();
  }

  /** Nothing waiting is written any more: the consumer is gone. */
  drop(): void {
    this.#cancel();
  }

  #cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
