import type { Subscription } from '@slipstream/client';

/**
 * Calls `missed` each time two more heartbeat intervals pass without any sign of life, the way
 * pulls with an idle_heartbeat tell a silent server from a gone one, with the intervals missed
 * since the last sign (2, 4, ...). Interval 0: off. A sign of life is a message arriving on
 * `sub` (read or not: a reader busy with one message is no silent server) or one waiting to
 * be read. One timer per interval looks; nothing runs per message.
 */
export class HeartbeatMonitor {
  readonly #interval: number;
  readonly #sub: Subscription;
  readonly #missed: (count: number) => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastReceived = 0;
  /** Intervals in a row without a sign of life. */
  #silent = 0;

  constructor(interval: number, sub: Subscription, missed: (count: number) => void) {
    this.#interval = interval;
    this.#sub = sub;
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
    const received = this.#sub.getReceived();
    if (received !== this.#lastReceived || this.#sub.getPending() > 0) {
      this.#lastReceived = received;
      this.#silent = 0;
    } else if (++this.#silent % 2 === 0) {
      this.#missed(this.#silent);
    }
  }
}
