/**
 * A pull consumer's side of MSG.NEXT: taking a request in (or refusing it with its status),
 * choosing which waiting request the next message goes to, and ending requests that expired
 * (408), lost their listener, or, being no_wait, got what there was; idle heartbeats to the
 * waiting, all on one timer for the earliest deadline.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import type { InternalClient } from '../../internal-client.js';
import { timerDelay } from '../../timer-delay.js';
import type { ConsumerLoad, PriorityGroups } from './priority-groups.js';
import { parsePullBody } from './pull-body.js';
import { type StatusReply, statusHeaders } from './status-message.js';
import {
  pendingHeaders,
  pullLimitsExceeded,
  type WaitingRequest,
  WaitQueue,
} from './wait-queue.js';

const EMPTY = new Uint8Array(0);

/** What the requests need from their consumer. */
export interface PullConsumer {
  readonly client: InternalClient;
  /** The current config (an update may change the request limits). */
  config(): ConsumerConfig;
  /** Messages a request could get now (pending plus due redeliveries). */
  available(): number;
  /** An idle heartbeat with the consumer's last sequences. */
  heartbeat(): Buffer;
  /** Wakes the consumer's deliver pass. */
  wake(): void;
  /** Its priority group policy. */
  readonly priority: PriorityGroups;
}

export class PullRequests {
  readonly queue: WaitQueue;
  #timer: NodeJS.Timeout | undefined;
  /** When #timer fires (ms since the epoch). */
  #timerDue = 0;
  #stopped = false;

  constructor(private readonly consumer: PullConsumer) {
    this.queue = new WaitQueue(consumer.config().max_waiting!);
  }

  /** A MSG.NEXT (or +NXT) request: queued, or answered at once with why not. */
  request(reply: string, body: Uint8Array): void {
    const refused = this.#queue(reply, body);
    if (refused) this.#status(reply, refused);
  }

  #queue(reply: string, body: Uint8Array): StatusReply | undefined {
    const waiting = this.queue;
    const now = Date.now();
    const parsed = parsePullBody(body, now);
    if (!parsed.ok) return parsed.status;
    const limited = pullLimitsExceeded(this.consumer.config(), parsed, now);
    if (limited) return limited;
    // The priority check answers for itself: a refusal, or a 400 the request survives.
    const admitted = this.consumer.priority.admit(parsed.priority, (status) =>
      this.#status(reply, status),
    );
    if (!admitted) return undefined;
    if (waiting.full) this.expire(false);
    if (parsed.noWait) {
      const available = this.consumer.available();
      if (available === 0 && parsed.expires === 0) {
        waiting.lastActive = now;
        return { code: 404, description: 'No Messages' };
      }
      if (available > 0) {
        this.expire(false);
        let wanted = 0;
        for (const request of waiting) wanted += request.batch;
        if (available < wanted) {
          waiting.lastActive = now;
          return { code: 408, description: 'Requests Pending' };
        }
      }
    }
    const request: WaitingRequest = {
      reply,
      batch: Math.max(parsed.batch, 1),
      delivered: 0,
      maxBytes: parsed.maxBytes,
      expires: parsed.expires,
      noWait: parsed.noWait,
      heartbeat: parsed.heartbeat,
      nextHeartbeat: parsed.heartbeat > 0 ? now + parsed.heartbeat : 0,
      priority: parsed.priority,
    };
    if (!waiting.add(request, this.consumer.priority.prioritized)) {
      return { code: 409, description: 'Exceeded MaxWaiting' };
    }
    this.#arm();
    this.consumer.wake();
    return undefined;
  }

  /**
   * The request the next message of `size` bytes goes to: the head of the queue, unless its
   * priority says wait (it goes to the back; once every request waited, none), it claims a pin
   * that is not the consumer's (423), its byte budget is too small (409, and it is dropped) or
   * it expired or lost its listener (as of `now`, the deliver pass's clock).
   */
  take(size: number, load: ConsumerLoad, now: number): WaitingRequest | undefined {
    const waiting = this.queue;
    const last = waiting.last;
    for (let request = waiting.peek(); request; request = waiting.peek()) {
      const verdict = this.consumer.priority.verdict(request, load);
      if (verdict === 'pass') {
        waiting.cycle();
        if (request === last) return undefined;
        continue;
      }
      if (verdict === 'wrong-pin') {
        waiting.dropHead();
        this.#status(request.reply, { code: 423, description: 'Nats-Wrong-Pin-Id' });
        continue;
      }
      if (request.maxBytes > 0) {
        if (size <= request.maxBytes) {
          request.maxBytes -= size;
          if (request.maxBytes === 0) request.batch = 1;
        } else {
          waiting.dropHead();
          this.#status(request.reply, {
            code: 409,
            description: 'Message Size Exceeds MaxBytes',
            headers: pendingHeaders(request),
          });
          continue;
        }
      }
      if ((request.expires === 0 || now < request.expires) && this.#listened(request)) {
        waiting.served(this.consumer.priority.prioritized);
        if (request.batch > 0 && request.heartbeat > 0) {
          request.nextHeartbeat = now + request.heartbeat;
        }
        return request;
      }
      waiting.dropHead();
    }
    return undefined;
  }

  /**
   * Ends expired requests with 408 (and, at the end of what could be sent, no_wait ones that
   * got something), drops those nobody listens to, sends due heartbeats, and sets the timer
   * for the next of these.
   */
  expire(endOfMessages: boolean): void {
    const now = Date.now();
    this.queue.retain((request) => {
      if (
        (endOfMessages && request.noWait && request.delivered > 0) ||
        (request.expires > 0 && now >= request.expires)
      ) {
        this.#status(request.reply, {
          code: 408,
          description: 'Request Timeout',
          headers: pendingHeaders(request),
        });
        return false;
      }
      if (!this.#listened(request)) return false;
      if (request.heartbeat > 0 && now >= request.nextHeartbeat) {
        this.consumer.client.publish(request.reply, EMPTY, { headers: this.consumer.heartbeat() });
        request.nextHeartbeat = now + request.heartbeat;
      }
      return true;
    });
    this.#arm();
  }

  /** The consumer is gone: with `deleted`, the waiting learn it (409 Consumer Deleted). */
  stop(deleted: boolean): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const waiting = this.queue.drain();
    if (!deleted) return;
    for (const request of waiting) {
      this.#status(request.reply, { code: 409, description: 'Consumer Deleted' });
    }
  }

  #listened(request: WaitingRequest): boolean {
    return this.consumer.client.hasInterest(request.reply);
  }

  /**
   * Sets the timer for the earliest deadline. A timer already set for that time or earlier is
   * kept (each request and each deliver pass re-arms, and setting a timer is not free): when it
   * fires before anything is due, it only arms again.
   */
  #arm(): void {
    const next = this.#nextDeadline();
    if (next === Number.POSITIVE_INFINITY || this.#stopped) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      return;
    }
    if (this.#timer && this.#timerDue <= next) return;
    clearTimeout(this.#timer);
    this.#timerDue = next;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        if (Date.now() >= this.#nextDeadline()) this.expire(true);
        else this.#arm();
      },
      // a deadline beyond setTimeout's reach fires early and arms again
      timerDelay(Math.max(1, next - Date.now())),
    );
    this.#timer.unref?.();
  }

  /** The earliest expiry or heartbeat of the waiting requests (ms since the epoch). */
  #nextDeadline(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const request of this.queue) {
      if (request.expires > 0) next = Math.min(next, request.expires);
      if (request.heartbeat > 0) next = Math.min(next, request.nextHeartbeat);
    }
    return next;
  }

  #status(reply: string, status: StatusReply): void {
    this.consumer.client.publish(reply, EMPTY, {
      headers: statusHeaders(status.code, status.description, status.headers),
    });
  }
}
