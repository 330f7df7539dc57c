import { randomBytes } from 'node:crypto';
import type { Account } from './account.js';
import { Bridge, forward, type ResponsePolicy } from './forward.js';

/** nats-server's DEFAULT_SERVICE_EXPORT_RESPONSE_THRESHOLD. */
export const DEFAULT_RESPONSE_THRESHOLD = 2 * 60_000;

const REPLY_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

interface PendingResponse {
  /** Where the answer goes: the requester's account and reply subject. */
  readonly requester: Account;
  readonly reply: string;
  readonly policy: ResponsePolicy;
  /** Last time a response went through (or the request, until one did). */
  used: number;
}

/**
 * The reply subjects of requests this account received through a service import: each request's
 * reply is replaced by `_R_.<prefix>.<random>`, and a response published to it here goes back
 * to the requester. A singleton request's mapping ends with its first delivered response, a
 * stream or chunked one's with an empty message; any mapping unused for the response threshold
 * (or whose response reached nobody) is dropped, as nats-server does.
 */
export class ServiceResponses {
  readonly #account: Account;
  readonly #pending = new Map<string, PendingResponse>();
  readonly #bridge = new Bridge((message, subject) => this.#respond(message, subject));
  #prefix: string | undefined;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(account: Account) {
    this.#account = account;
  }

  /** A new reply subject of this account that answers `reply` in `requester`. */
  map(requester: Account, reply: string, policy: ResponsePolicy): string {
    if (this.#prefix === undefined) {
      this.#prefix = `_R_.${randomToken(5)}.`;
      this.#account.router.subscribe(this.#bridge.subscription(`${this.#prefix}>`));
    }
    const mapped = this.#prefix + randomToken(8);
    this.#pending.set(mapped, { requester, reply, policy, used: Date.now() });
    this.#sweeper ??= setInterval(() => this.#sweep(), 1_000).unref();
    return mapped;
  }

  drop(mapped: string): void {
    this.#pending.delete(mapped);
    if (this.#pending.size === 0) this.stop();
  }

  /** Stops the sweeper (the server is closing, or nothing is pending). */
  stop(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #respond(
    message: { reply: string | undefined; headers?: Uint8Array; payload: Uint8Array },
    subject: string,
  ): boolean {
    const pending = this.#pending.get(subject);
    if (!pending) return false;
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
      if (now - pending.used > pending.policy.threshold) this.#pending.delete(mapped);
    }
    if (this.#pending.size === 0) this.stop();
  }
}

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let token = '';
  for (const byte of bytes) token += REPLY_ALPHABET[byte % REPLY_ALPHABET.length];
  return token;
}
