/**
 * Calls `missed` each time two more heartbeat intervals pass without any sign of life
 * (`alive()`), the way pulls with an idle_heartbeat tell a silent server from a gone one, with
 * the intervals missed since the last sign (2, 4, ...). Interval 0: off. `alive()` runs for every message, so it only sets a flag:
 * one timer per interval checks it (re-arming a timer per message cost more than the rest of
 * a delivery).
 */
export class HeartbeatMonitor {
  readonly #interval: number;
  readonly #missed: (count: number) => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #seen = false;
  /** Intervals in a row without a sign of life. */
  #silent = 0;

  constructor(interval: number, missed: (count: number) => void) {
    this.#interval = interval;
    this.#missed = missed;
  }

  alive(): void {
    if (!this.#interval) return;
    this.#seen = true;
    this.#timer ??= setInterval(() => this.#check(), this.#interval);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #check(): void {
    if (this.#seen) {
      this.#seen = false;
      this.#silent = 0;
    } else if (++this.#silent % 2 === 0) {
      this.#missed(this.#silent);
    }
  }
}
