import { randomBytes } from 'node:crypto';
import { hasWildcard, subjectMatches } from '@slipstream/protocol';
import type { Router } from '../router.js';
import type { Subscriber, Subscription } from '../subscription.js';
import { Bridge, forward, type ResponsePolicy } from './forward.js';
import type { LatencyFailure, TrackedRequest } from './service-latency.js';

/** nats-server's DEFAULT_SERVICE_EXPORT_RESPONSE_THRESHOLD. */
export const DEFAULT_RESPONSE_THRESHOLD = 2 * 60_000;

const REPLY_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** An account as its reply mappings need it (an Account). */
export interface RespondingAccount {
  readonly name: string;
  readonly router: Router;
  readonly responses: ServiceResponses;
}

interface PendingResponse {
  /** Where the answer goes: the requester's account and reply subject. */
  readonly requester: RespondingAccount;
  readonly reply: string;
  readonly policy: ResponsePolicy;
  /** Set when the request's latency is measured. */
  readonly tracked: TrackedRequest | undefined;
  /** Last time a response went through (or the request, until one did). */
  used: number;
}

/**
 * The reply subjects of requests this account received through a service import: each request's
 * reply is replaced by `_R_.<prefix>.<random>`, and a response published to it here goes back
 * to the requester. A singleton request's mapping ends with its first delivered response, a
 * stream or chunked one's with an empty message; any mapping unused for the response threshold
 * (or whose response reached nobody) is dropped, as nats-server does. So is every mapping to a
 * reply subject of this account that nobody here listens to any more (nats-server's reverse
 * response entries): an answer to it goes nowhere, even after a new subscription to the reply.
 */
/**
 * The subscriber of an exporter's `_R_.` reply subjects. Unlike an import's bridge, its interest
 * is told to the other members of a cluster: the service that answers may run on one of them.
 */
export class ResponseBridge extends Bridge {}

export class ServiceResponses {
  readonly #account: RespondingAccount;
  readonly #pending = new Map<string, PendingResponse>();
  /** As the requester: this account's reply subjects, each with the mappings that answer it. */
  readonly #awaited = new Map<string, Map<string, ServiceResponses>>();
  #stopWatching: (() => void) | undefined;
  readonly #bridge = new ResponseBridge((message, subject, publisher) =>
    this.#respond(message, subject, publisher),
  );
  #prefix: string | undefined;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(account: RespondingAccount) {
    this.#account = account;
  }

  /** A new reply subject of this account that answers `reply` in `requester`. */
  map(
    requester: RespondingAccount,
    reply: string,
    policy: ResponsePolicy,
    tracked: TrackedRequest | undefined,
  ): string {
    if (this.#prefix === undefined) {
      this.#prefix = `_R_.${randomToken(5)}.`;
      this.#account.router.subscribe(this.#bridge.subscription(`${this.#prefix}>`));
    }
    const mapped = this.#prefix + randomToken(8);
    this.#pending.set(mapped, { requester, reply, policy, tracked, used: Date.now() });
    requester.responses.#await(reply, mapped, this);
    this.#sweeper ??= setInterval(() => this.#sweep(), 1_000).unref();
    return mapped;
  }

  /** Ends a mapping; `why` it ended without a response, for a request whose latency is measured. */
  drop(mapped: string, why?: LatencyFailure): void {
    const pending = this.#pending.get(mapped);
    if (!pending) return;
    if (why && pending.tracked) pending.tracked.latency.failed(pending.tracked, why);
    this.#pending.delete(mapped);
    pending.requester.responses.#forget(pending.reply, mapped);
    if (this.#pending.size === 0) this.stop();
  }

  /** Stops the sweeper (the server is closing, or nothing is pending). */
  stop(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #await(reply: string, mapped: string, responder: ServiceResponses): void {
    let answers = this.#awaited.get(reply);
    if (!answers) this.#awaited.set(reply, (answers = new Map()));
    answers.set(mapped, responder);
    this.#stopWatching ??= this.#account.router.onUnsubscribe((sub) => this.#unsubscribed(sub));
  }

  #forget(reply: string, mapped: string): void {
    const answers = this.#awaited.get(reply);
    answers?.delete(mapped);
    if (answers?.size === 0) this.#awaited.delete(reply);
    if (this.#awaited.size === 0) {
      this.#stopWatching?.();
      this.#stopWatching = undefined;
    }
  }

  /** A subscription here ended: the mappings of replies nobody listens to any more end too. */
  #unsubscribed(sub: Subscription): void {
    const replies = hasWildcard(sub.subject)
      ? [...this.#awaited.keys()].filter((reply) => subjectMatches(reply, sub.subject))
      : this.#awaited.has(sub.subject)
        ? [sub.subject]
        : [];
    for (const reply of replies) {
      const interest = this.#account.router.sublist.match(reply);
      if (interest.psubs.length + interest.qsubs.length > 0) continue;
      for (const [mapped, responder] of this.#awaited.get(reply) ?? []) {
        responder.drop(mapped, 'requestTimeout');
      }
    }
  }

  #respond(
    message: { reply: string | undefined; headers?: Uint8Array; payload: Uint8Array },
    subject: string,
    responder: Subscriber,
  ): boolean {
    const pending = this.#pending.get(subject);
    if (!pending) return false;
    if (pending.tracked) {
      pending.tracked.latency.answered(pending.tracked, responder, this.#account.name);
    }
    const delivered = forward(
      this.#bridge,
      this.#account,
      pending.requester,
      {
        subject: pending.reply,
        reply: message.reply,
        headers: message.headers,
        payload: message.payload,
      },
      pending.policy,
    );
    pending.used = Date.now();
    const finished =
      pending.policy.type === 'singleton' ||
      (message.payload.length === 0 && (message.headers?.length ?? 0) === 0);
    if (!delivered || finished) this.drop(subject);
    return delivered;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [mapped, pending] of this.#pending) {
      if (now - pending.used > pending.policy.threshold) this.drop(mapped, 'serviceTimeout');
    }
  }
}

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let token = '';
  for (const byte of bytes) token += REPLY_ALPHABET[byte % REPLY_ALPHABET.length];
  return token;
}
