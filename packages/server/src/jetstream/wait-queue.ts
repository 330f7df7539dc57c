/**
 * Pull requests waiting on a consumer (nats-server's waitQueue): how a MSG.NEXT body is read,
 * the limits a consumer puts on it, and the status replies that end a request: 404 No
 * Messages, 408 Request Timeout, 409 Message Size Exceeds MaxBytes (with the request's
 * remaining batch and bytes in Nats-Pending-Messages / Nats-Pending-Bytes), and the rest.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import { formatGoDuration } from './go-duration.js';
import type { PullPriority } from './priority-groups.js';

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

/** A reply without a body: a status line and optional headers. */
export interface StatusReply {
  code: number;
  description: string;
  headers?: [string, string | number][];
}

export type ParsedPull =
  | {
      ok: true;
      batch: number;
      expires: number;
      maxBytes: number;
      noWait: boolean;
      heartbeat: number;
      priority: PullPriority | undefined;
    }
  | { ok: false; status: StatusReply };

const NANOS_PER_MS = 1_000_000;

/**
 * Reads a MSG.NEXT (or +NXT) body as nats-server's nextReqFromMsg: empty is one message, a
 * number is a batch size, `{...}` is a request; anything else is one message.
 */
export function parsePullBody(body: string, now: number): ParsedPull {
  const text = body.trim();
  if (text.startsWith('{')) {
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(text);
    } catch (error) {
      return badRequest((error as Error).message);
    }
    const expiresNanos = numberOr0(request.expires);
    const heartbeatNanos = numberOr0(request.idle_heartbeat);
    if (heartbeatNanos > 0 && heartbeatNanos * 2 > expiresNanos) {
      return badRequest('heartbeat value too large');
    }
    return {
      ok: true,
      batch: numberOr0(request.batch),
      expires: expiresNanos > 0 ? now + expiresNanos / NANOS_PER_MS : 0,
      maxBytes: numberOr0(request.max_bytes),
      noWait: request.no_wait === true,
      heartbeat: heartbeatNanos / NANOS_PER_MS,
      priority: {
        group: typeof request.group === 'string' ? request.group : '',
        minPending: numberOr0(request.min_pending),
        minAckPending: numberOr0(request.min_ack_pending),
        id: typeof request.id === 'string' ? request.id : '',
      },
    };
  }
  const batch = /^[+-]?\d+$/.test(text) ? Number(text) : 1;
  return {
    ok: true,
    batch,
    expires: 0,
    maxBytes: 0,
    noWait: false,
    heartbeat: 0,
    priority: undefined,
  };
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function badRequest(reason: string): ParsedPull {
  return { ok: false, status: { code: 400, description: `Bad Request - ${reason}` } };
}

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
 * wants more goes to the back, as nats-server's pop does.
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

  add(request: WaitingRequest): boolean {
    if (this.full) return false;
    this.#requests.push(request);
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
  served(): void {
    const request = this.#requests.shift()!;
    request.delivered++;
    request.batch--;
    if (request.batch > 0) this.#requests.push(request);
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
