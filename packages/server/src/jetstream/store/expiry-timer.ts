/**
 * The one timer of a store's expiry (max_age and per-message TTLs): set for the soonest due
 * time, left alone when already set for as soon or sooner, and tried again a second later when
 * the expiry it runs fails (the log's error, a full disk, reaches the next caller instead).
 */
import { timerDelay } from '../../timer-delay.js';
import type { Clock } from './clock.js';

/** How long expiry waits before trying again after the log failed. */
const EXPIRY_RETRY_MS = 1000;

export class ExpiryTimer {
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (clock time), so a sooner due time can re-arm it. */
  #due = 0n;

  constructor(
    private readonly clock: Clock,
    /** Removes what is due and arms the timer again; may throw. */
    private readonly expire: () => void,
  ) {}

  /** Fires at `due` (clock time, ns); undefined when nothing will be due. */
  arm(due: bigint | undefined): void {
    if (due === undefined) {
      this.disarm();
      return;
    }
    // A timer already set for as soon or sooner stays.
    if (this.#timer && this.#due <= due) return;
    this.disarm();
    const dueInNs = due - this.clock();
    const dueInMs = dueInNs <= 0n ? 0 : timerDelay(Number(dueInNs / 1_000_000n) + 1);
    this.#due = due;
    this.#timer = setTimeout(() => this.#fire(), dueInMs);
    this.#timer.unref();
  }

  disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #fire(): void {
    this.#timer = undefined;
    try {
      this.expire();
    } catch {
      this.#timer = setTimeout(() => this.#fire(), EXPIRY_RETRY_MS);
      this.#timer.unref();
    }
  }
}
