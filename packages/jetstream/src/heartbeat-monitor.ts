/** Where the monitor looks for signs of life: messages received, and those not yet read. */
export interface Liveness {
  getReceived(): number;
  getPending(): number;
}

/**
 * Calls `missed` each time two more heartbeat intervals pass without any sign of life, the way
 * pulls with an idle_heartbeat tell a silent server from a gone one, with the intervals missed
 * since the last sign (2, 4, ...). Interval 0: off. A sign of life is a message arriving
 * (read or not: a reader busy with one message is no silent server) or one waiting to be
 * read. One timer per interval looks; nothing runs per message.
 */
export class HeartbeatMonitor {
  readonly #interval: number;
  readonly #signs: Liveness;
  readonly #missed: (count: number) => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastReceived = 0;
  /** Intervals in a row without a sign of life. */
  #silent = 0;

  constructor(interval: number, signs: Liveness, missed: (count: number) => void) {
    this.#interval = interval;
    this.#signs = signs;
    this.#missed = missed;
  }

  /** Starts the watch, once there is something to hear from (a request sent). */
  start(): void {
    if (!this.#interval) return;
    this.#timer ??= setInterval(() => this.#check(), this.#interval);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #check(): void {
    const received = this.#signs.getReceived();
    if (received !== this.#lastReceived || this.#signs.getPending() > 0) {
      this.#lastReceived = received;
      this.#silent = 0;
    } else if (++this.#silent % 2 === 0) {
      this.#missed(this.#silent);
    }
  }
}
