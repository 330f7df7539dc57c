/**
 * Calls `missed` when two heartbeat intervals pass without any sign of life (`alive()`), the
 * way pulls with an idle_heartbeat tell a silent server from a gone one. Interval 0: off.
 */
export class HeartbeatMonitor {
  readonly #interval: number;
  readonly #missed: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(interval: number, missed: () => void) {
    this.#interval = interval;
    this.#missed = missed;
  }

  alive(): void {
    if (!this.#interval) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#missed, this.#interval * 2);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}
