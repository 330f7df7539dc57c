/**
 * A consumer's pause (nats-server 2.11 `pause_until`): until the deadline it delivers nothing,
 * push or pull; when the deadline passes it resumes by itself (updatePauseState arms a timer,
 * consumer.go:1229). The deadline is part of the config, so a restart keeps it.
 */
import { parseTimestamp, timestampToEpochNanos, ZERO_TIME } from '@slipstream/jsapi';
import { timerDelay } from '../../timer-delay.js';
import { nowNanos, wireTime } from '../shared/wire-time.js';

const NANOS_PER_MS = 1_000_000n;

/** The deadline a `pause_until` names, in ns since the epoch; 0 for none or Go's zero time. */
export function pauseDeadline(pauseUntil: string | undefined): bigint {
  if (!pauseUntil || pauseUntil === ZERO_TIME) return 0n;
  const parsed = parseTimestamp(pauseUntil);
  return parsed ? timestampToEpochNanos(parsed) : 0n;
}

/** The deadline as nats-server keeps it in the config: UTC, or no field for none. */
export function wirePauseUntil(deadline: bigint): string | undefined {
  return deadline === 0n ? undefined : wireTime(deadline);
}

export class ConsumerPause {
  #deadline = 0n;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    /** Called when a pause ends by its deadline passing. */
    private readonly resumed: () => void,
  ) {}

  get deadline(): bigint {
    return this.#deadline;
  }

  /** Nanoseconds left, 0 when not paused. */
  remaining(): bigint {
    if (this.#deadline === 0n) return 0n;
    const left = this.#deadline - nowNanos();
    return left > 0n ? left : 0n;
  }

  get paused(): boolean {
    return this.remaining() > 0n;
  }

  /** Sets the deadline from a config's pause_until; true when it changed. */
  set(pauseUntil: string | undefined): boolean {
    const deadline = pauseDeadline(pauseUntil);
    if (deadline === this.#deadline) return false;
    this.#deadline = deadline;
    this.#arm();
    return true;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.stop();
    const leftMs = Number(this.remaining() / NANOS_PER_MS);
    if (this.remaining() === 0n) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        if (this.paused) this.#arm();
        else this.resumed();
      },
      timerDelay(leftMs + 1),
    );
    this.#timer.unref?.();
  }
}
