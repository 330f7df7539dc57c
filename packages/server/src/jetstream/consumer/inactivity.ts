/**
 * A consumer's inactive_threshold: a push consumer nobody listens to, or a pull consumer nobody
 * asks, removes itself once the threshold has passed. A pull consumer's deadline gets up to 1 s
 * of jitter, as in nats-server.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import { afterWait } from '../../timer-delay.js';
import type { PullRequests } from './pull-requests.js';
import type { PushDelivery } from './push-delivery.js';

const NANOS_PER_MS = 1_000_000;
const JITTER_MS = 900;

/** The consumer as its inactivity watch sees it: a pull or a push one. */
export interface WatchedConsumer {
  config(): ConsumerConfig;
  isClosed(): boolean;
  readonly pull: PullRequests | undefined;
  readonly push: PushDelivery | undefined;
  wake(): void;
  /** The threshold passed with nobody there: the consumer removes itself. */
  expired(): void;
}

export class InactivityWatch {
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly consumer: WatchedConsumer) {}

  /** (Re)starts the watch, under the config's threshold (none: no watch). */
  watch(): void {
    this.stop();
    const threshold = (this.consumer.config().inactive_threshold ?? 0) / NANOS_PER_MS;
    if (threshold <= 0 || this.consumer.isClosed()) return;
    const pull = this.consumer.pull;
    if (!pull) {
      // Push: a consumer still listened to looks again after the threshold; one nobody
      // listens to is removed if that is still so when the threshold has passed.
      const push = this.consumer.push!;
      const listened = push.hasInterest();
      push.active = listened;
      this.#after(threshold, () => {
        const listenedNow = push.hasInterest();
        if (!listenedNow && !push.active) return this.consumer.expired();
        if (listenedNow) this.consumer.wake();
        this.watch();
      });
      if (!listened) push.waitForInterest();
      return;
    }
    const deadline = threshold + 100 + Math.random() * JITTER_MS;
    const check = (wait: number) =>
      this.#after(wait, () => {
        const idle = Date.now() - pull.queue.lastActive;
        if (idle <= threshold) return check(deadline - idle);
        pull.expire(true);
        if (pull.queue.length > 0) return check(deadline);
        this.consumer.expired();
      });
    check(deadline);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Runs `then` once `ms` have passed (a threshold may be longer than one setTimeout waits). */
  #after(ms: number, then: () => void): void {
    afterWait(ms, then, (timer) => {
      this.#timer = timer;
    });
  }
}
