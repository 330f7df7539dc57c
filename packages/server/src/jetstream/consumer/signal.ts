/**
 * The wake-up of one consumer: however often it is raised during a turn (every append, ack
 * and pull request raises it), the deliver pass runs once, after the current synchronous
 * work, as nats-server's non-blocking send on a consumer's `mch` channel.
 */
export class Signal {
  #raised = false;
  readonly #pass: () => void;

  constructor(pass: () => void) {
    this.#pass = pass;
  }

  raise(): void {
    if (this.#raised) return;
    this.#raised = true;
    queueMicrotask(() => {
      this.#raised = false;
      this.#pass();
    });
  }

  /** Runs the pass on a later turn, letting I/O through first (a long backlog yields). */
  raiseLater(): void {
    if (this.#raised) return;
    this.#raised = true;
    setImmediate(() => {
      this.#raised = false;
      this.#pass();
    });
  }
}
