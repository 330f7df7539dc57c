/**
 * Pull requests waiting on a consumer (nats-server's waitQueue): the limits a consumer puts on
 * a request, and the status replies that end one: 404 No Messages, 408 Request Timeout, 409
 * Message Size Exceeds MaxBytes (with the request's remaining batch and bytes in
 * Nats-Pending-Messages / Nats-Pending-Bytes), and the rest.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import { formatGoDuration } from '../shared/go-duration.js';
import type { PullPriority } from './priority-groups.js';
import type { StatusReply } from './status-message.js';

export interface WaitingRequest {
  readonly reply: string;
  /** Messages still wanted. */
  batch: number;
  /** Messages sent so far. */
  delivered: number;
  /** Bytes still allowed; 0 means no byte limit. */
  maxBytes: number;
  /** Milliseconds since the epoch; 0 never. */
  readonly expires: number;
  readonly noWait: boolean;
  /** Idle heartbeat interval in ms (0: none) and when the next one is due. */
  readonly heartbeat: number;
  nextHeartbeat: number;
  /** Its priority group fields (JSON requests only); a pinned request's id is its pin. */
  priority: PullPriority | undefined;
}

const NANOS_PER_MS = 1_000_000;

/** The consumer's max_batch / max_expires / max_bytes, checked as processNextMsgRequest does. */
export function pullLimitsExceeded(
  config: ConsumerConfig,
  request: { batch: number; expires: number; maxBytes: number },
  now: number,
): StatusReply | undefined {
  const maxBatch = config.max_batch ?? 0;
  if (maxBatch > 0 && request.batch > maxBatch) {
    return { code: 409, description: `Exceeded MaxRequestBatch of ${maxBatch}` };
  }
  const maxExpires = config.max_expires ?? 0;
  if (request.expires > 0 && maxExpires > 0 && request.expires > now + maxExpires / NANOS_PER_MS) {
    return {
      code: 409,
      description: `Exceeded MaxRequestExpires of ${formatGoDuration(maxExpires)}`,
    };
  }
  const maxBytes = config.max_bytes ?? 0;
  if (request.maxBytes > 0 && maxBytes > 0 && request.maxBytes > maxBytes) {
    return { code: 409, description: `Exceeded MaxRequestMaxBytes of ${maxBytes}` };
  }
  return undefined;
}

/** The remaining batch and bytes of a request, as the statuses that end one report them. */
export function pendingHeaders(request: WaitingRequest): [string, number][] {
  return [
    ['Nats-Pending-Messages', request.batch],
    ['Nats-Pending-Bytes', request.maxBytes],
  ];
}

/**
 * The requests in arrival order, served round-robin: a request that got a message and
 * wants more goes to the back, as nats-server's pop does. Under the `prioritized` policy
 * (2.12) the order is by each request's `priority` (0 first; a request without priority
 * fields last), arrival order among equals: a request joins, and one served goes back, behind
 * the last of its priority (addPrioritized, popAndRequeue, v2.12.1 consumer.go:3680, 3786-3842).
 */
export class WaitQueue {
  readonly #requests: WaitingRequest[] = [];
  /** When a request last arrived or was served (ms): the inactivity clock of pull consumers. */
  lastActive = Date.now();

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.#requests.length;
  }

  get full(): boolean {
    return this.#requests.length >= this.capacity;
  }

  add(request: WaitingRequest, prioritized = false): boolean {
    if (this.full) return false;
    if (prioritized) this.#insertByPriority(request);
    else this.#requests.push(request);
    this.lastActive = Date.now();
    return true;
  }

  peek(): WaitingRequest | undefined {
    return this.#requests[0];
  }

  /** The request that arrived last (the queue's tail). */
  get last(): WaitingRequest | undefined {
    return this.#requests[this.#requests.length - 1];
  }

  /** Moves the head request to the back without serving it (its priority says wait). */
  cycle(): void {
    const request = this.#requests.shift();
    if (request) this.#requests.push(request);
  }

  /** Counts one message sent to the head request and moves it along. */
  served(prioritized = false): void {
    const request = this.#requests.shift()!;
    request.delivered++;
    request.batch--;
    if (request.batch <= 0) return;
    if (prioritized) this.#insertByPriority(request);
    else this.#requests.push(request);
  }

  /** Behind every request of the same or a more urgent priority. */
  #insertByPriority(request: WaitingRequest): void {
    const rank = rankOf(request);
    let at = this.#requests.length;
    while (at > 0 && rankOf(this.#requests[at - 1]!) > rank) at--;
    this.#requests.splice(at, 0, request);
  }

  /** Drops the head request. */
  dropHead(): WaitingRequest | undefined {
    return this.#requests.shift();
  }

  /** Keeps only the requests for which `keep` is true (it may reply to those it drops). */
  retain(keep: (request: WaitingRequest) => boolean): void {
    let kept = 0;
    for (const request of this.#requests) if (keep(request)) this.#requests[kept++] = request;
    this.#requests.length = kept;
  }

  /** Empties the queue, returning what was waiting. */
  drain(): WaitingRequest[] {
    return this.#requests.splice(0);
  }

  [Symbol.iterator](): Iterator<WaitingRequest> {
    return this.#requests[Symbol.iterator]();
  }
}

/** A request's place under `prioritized`: its priority, or after all when it has none. */
function rankOf(request: WaitingRequest): number {
  return request.priority?.priority ?? Number.MAX_SAFE_INTEGER;
}
