/**
 * The push side of a consumer: whether someone listens on its deliver subject (and the wait
 * for someone to subscribe), flow control with its `$JS.FC.` subscription, the rate limit, and
 * idle heartbeats. A pull consumer has none of it.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import type { InternalClient } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';
import { afterWait } from '../../timer-delay.js';
import { FlowControl } from './flow-control.js';
import { RateLimit } from './rate-limit.js';
import { statusHeaders } from './status-message.js';

const EMPTY = new Uint8Array(0);
const NANOS_PER_MS = 1_000_000;

/** What the push side needs of its consumer. */
export interface PushConsumer {
  readonly client: InternalClient;
  config(): ConsumerConfig;
  /** The consumer's idle heartbeat status message. */
  heartbeat(): Buffer;
  /** Delivery may go on: a listener came, or the client answered flow control. */
  wake(): void;
  /** Whether someone listens changed (the consumer's inactivity is watched anew). */
  activeChanged(): void;
  isClosed(): boolean;
}

export class PushDelivery {
  #flow: FlowControl | undefined;
  #rate: RateLimit | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  /** When the last message went out (performance.now()), which the heartbeat waits after. */
  #lastDelivered = 0;
  /** Nobody listening: stops waiting for a subscriber to the deliver subject. */
  #stopWaitingForInterest: (() => void) | undefined;
  /** Whether someone listens on the deliver subject. */
  active = true;

  constructor(private readonly consumer: PushConsumer) {}

  /** Listens for flow control replies (when configured), arms the heartbeat and the rate limit. */
  start(flowPrefix: string, subscriptions: Subscription[], maxMsgSize: number | undefined): void {
    if (this.consumer.config().flow_control) {
      this.#flow = new FlowControl(flowPrefix);
      subscriptions.push(
        this.consumer.client.subscribe(`${flowPrefix}*`, (m) => {
          if (this.#flow?.answered(m.subject)) this.consumer.wake();
        }),
      );
    }
    this.#armHeartbeat();
    this.limitRate(maxMsgSize);
  }

  stop(): void {
    clearTimeout(this.#heartbeatTimer);
    this.stopWaitingForInterest();
  }

  limitRate(maxMsgSize: number | undefined): void {
    const bps = this.consumer.config().rate_limit_bps ?? 0;
    this.#rate = bps > 0 ? new RateLimit(bps, maxMsgSize) : undefined;
  }

  /** Milliseconds a delivery of `size` bytes must wait for the rate limit (0: none). */
  rateWait(size: number): number {
    return this.#rate?.take(size) ?? 0;
  }

  /** The flow control reply subject a stalled flow waits on, for the heartbeat. */
  get stalledOn(): string | undefined {
    return this.#flow?.stalledOn;
  }

  /** Whether a subscriber listens on the deliver subject. */
  hasInterest(): boolean {
    return this.consumer.client.hasInterest(this.consumer.config().deliver_subject!);
  }

  /** Push delivery goes on while someone listens and flow control allows. */
  canPush(): boolean {
    const active = this.hasInterest();
    if (active !== this.active) {
      this.active = active;
      this.consumer.activeChanged();
    }
    if (!active) {
      this.waitForInterest();
      return false;
    }
    return !this.#flow?.blocked;
  }

  /** Nobody listens on the deliver subject: delivery resumes when someone subscribes. */
  waitForInterest(): void {
    if (this.#stopWaitingForInterest || this.consumer.isClosed()) return;
    this.#stopWaitingForInterest = this.consumer.client.whenInterest(
      this.consumer.config().deliver_subject!,
      () => {
        this.#stopWaitingForInterest = undefined;
        this.consumer.wake();
      },
    );
  }

  stopWaitingForInterest(): void {
    this.#stopWaitingForInterest?.();
    this.#stopWaitingForInterest = undefined;
  }

  /** A message of `size` bytes went out: flow control may ask for a reply; the heartbeat waits. */
  delivered(size: number): void {
    if (this.#flow) {
      const request = this.#flow.delivered(size);
      if (request) {
        this.consumer.client.publish(this.consumer.config().deliver_subject!, EMPTY, {
          reply: request,
          headers: statusHeaders(100, 'FlowControl Request'),
        });
      }
    }
    // The heartbeat timer is not re-armed per message: when it fires it finds this and waits on.
    this.#lastDelivered = performance.now();
  }

  /** A heartbeat goes out once the deliver subject has been idle for `idle_heartbeat`. */
  #armHeartbeat(wait?: number): void {
    const every = (this.consumer.config().idle_heartbeat ?? 0) / NANOS_PER_MS;
    if (every <= 0 || this.consumer.isClosed()) return;
    clearTimeout(this.#heartbeatTimer);
    const beat = () => {
      const idle = performance.now() - this.#lastDelivered;
      if (idle < every) {
        this.#armHeartbeat(every - idle);
        return;
      }
      if (this.hasInterest()) {
        this.consumer.client.publish(this.consumer.config().deliver_subject!, EMPTY, {
          headers: this.consumer.heartbeat(),
        });
      }
      this.#armHeartbeat();
    };
    afterWait(wait ?? every, beat, (timer) => {
      this.#heartbeatTimer = timer;
    });
  }
}
