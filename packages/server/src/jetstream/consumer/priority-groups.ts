/**
 * A pull consumer's priority group (nats-server 2.11 `priority_groups` / `priority_policy`;
 * 2.11 serves the first group only). `overflow`: a request naming min_pending or
 * min_ack_pending is passed over while the consumer has fewer messages pending, or fewer acks
 * outstanding, than that. `pinned_client`: one client gets everything; the first request
 * without a pin id when there is no pin gets a new one (a NUID, sent with every message in
 * Nats-Pin-Id), requests with another id are refused (423), requests without one wait. The pin
 * goes when no request with it arrives for priority_timeout, or on CONSUMER.UNPIN.
 * `prioritized` (2.12): the waiting requests are served by their `priority`, 0 first, in
 * turn among equals (the wait queue keeps that order; see wait-queue.ts).
 */
import type { ConsumerConfig, PriorityGroupState } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import { afterWait } from '../../timer-delay.js';
import { nowNanos, wireTime } from '../shared/wire-time.js';
import type { ConsumerEvents } from './consumer-events.js';
import type { StatusReply } from './status-message.js';

/** A pull request's priority fields (`group`, `min_pending`, `min_ack_pending`, `id`, `priority`). */
export interface PullPriority {
  group: string;
  minPending: number;
  minAckPending: number;
  /** The pin id it claims; the one it was given once pinned. */
  id: string;
  /** 2.12 `prioritized`: 0 (served first) to 9. */
  priority: number;
}

/** What the consumer has outstanding when a message is about to go out. */
export interface ConsumerLoad {
  /** Messages pending for a first delivery, this one included. */
  pending: number;
  /** Messages delivered and not yet acked. */
  ackPending: number;
}

/** Whether a waiting request may have the next message, must wait, or is refused (423). */
export type Verdict = 'serve' | 'pass' | 'wrong-pin';

const NANOS_PER_MS = 1_000_000;

export class PriorityGroups {
  #pin = '';
  #pinnedAt = 0n;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: () => ConsumerConfig,
    private readonly events: ConsumerEvents,
    /** Wakes the consumer: a pin ended, a waiting request may be served now. */
    private readonly wake: () => void,
  ) {}

  /** The current pin id ('' when none). */
  get pin(): string {
    return this.#pin;
  }

  get pinned(): boolean {
    return this.config().priority_policy === 'pinned_client';
  }

  /** Whether waiting requests are ordered by their `priority` (2.12 `prioritized`). */
  get prioritized(): boolean {
    return this.config().priority_policy === 'prioritized';
  }

  /**
   * A new pull request's priority fields against the policy (processNextMsgRequest, 2.11
   * consumer.go:3818-3853): false when refused. `send` gets each status; as in nats-server,
   * fields of the other policy draw a 400 and the request goes on all the same.
   */
  admit(priority: PullPriority | undefined, send: (status: StatusReply) => void): boolean {
    if (!priority) return true;
    const config = this.config();
    const policy = config.priority_policy ?? 'none';
    if ((priority.minPending || priority.minAckPending) && policy !== 'overflow') {
      send(badRequest('Not a Overflow Priority consumer'));
    }
    if (priority.id && policy !== 'pinned_client') {
      send(badRequest('Not a Pinned Client Priority consumer'));
    }
    // 2.12 consumer.go:4172-4175
    if (priority.priority < 0 || priority.priority > 9) {
      send(badRequest('Priority must be between 0 and 9'));
      return false;
    }
    if (policy === 'none') return true;
    if (!priority.group) {
      send(badRequest('Priority Group missing'));
      return false;
    }
    if (!config.priority_groups?.includes(priority.group)) {
      send(badRequest('Invalid Priority Group'));
      return false;
    }
    if (this.#pin) {
      if (priority.id === this.#pin) this.#armTimeout();
      else if (priority.id) {
        send({ code: 423, description: 'Nats-Pin-Id mismatch' });
        return false;
      }
    }
    return true;
  }

  /** Whether the waiting request with `priority` may have the next message (nextWaiting). */
  verdict(request: { priority: PullPriority | undefined }, load: ConsumerLoad): Verdict {
    const priority = request.priority;
    switch (this.config().priority_policy) {
      case 'pinned_client': {
        const id = priority?.id ?? '';
        if (this.#pin) return id === this.#pin ? 'serve' : id ? 'wrong-pin' : 'pass';
        if (id) return 'wrong-pin';
        this.#pin = nuid.next();
        this.#pinnedAt = nowNanos();
        request.priority = {
          group: '',
          minPending: 0,
          minAckPending: 0,
          priority: 0,
          ...priority,
          id: this.#pin,
        };
        this.#armTimeout();
        this.events.pinned(this.#group, this.#pin);
        return 'serve';
      }
      case 'overflow': {
        if (!priority) return 'serve';
        const short =
          (priority.minPending > 0 && priority.minPending > load.pending) ||
          (priority.minAckPending > 0 && priority.minAckPending > load.ackPending);
        return short ? 'pass' : 'serve';
      }
      default:
        return 'serve';
    }
  }

  /** Ends the pin (CONSUMER.UNPIN: reason "admin"; its timeout: "timeout"). */
  unpin(reason: 'admin' | 'timeout'): void {
    // pinned_ts keeps the last pin's time, as nats-server leaves it.
    this.#pin = '';
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.events.unpinned(this.#group, reason);
    this.wake();
  }

  /** The info's priority_groups: the served group and its pin (consumer.go:2933-2939). */
  state(): PriorityGroupState[] | undefined {
    const group = this.config().priority_groups?.[0];
    if (group === undefined) return undefined;
    return [
      {
        group,
        ...(this.#pin ? { pinned_client_id: this.#pin } : {}),
        pinned_ts: wireTime(this.#pinnedAt),
      },
    ];
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  get #group(): string {
    return this.config().priority_groups?.[0] ?? '';
  }

  /** The pin lasts priority_timeout from its last request (setPinnedTimer). */
  #armTimeout(): void {
    clearTimeout(this.#timer);
    const ttl = (this.config().priority_timeout ?? 0) / NANOS_PER_MS;
    afterWait(
      ttl,
      () => this.unpin('timeout'),
      (timer) => {
        this.#timer = timer;
      },
    );
  }
}

function badRequest(reason: string): StatusReply {
  return { code: 400, description: `Bad Request - ${reason}` };
}
