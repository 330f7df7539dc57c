/** nats-server's allow_responses defaults: one reply per request, within two minutes. */
export const DEFAULT_RESPONSES = { max: 1, expires: 2 * 60_000 } as const;

/** Reply subjects remembered per connection; past this, expired and used-up ones are swept. */
const SWEEP_AT = 10_000;

interface PendingReply {
  readonly receivedAt: number;
  sent: number;
}

/**
 * allow_responses for one connection: the reply subjects of the requests it received, each of
 * which it may publish to `max` times within `expires` ms, whatever its publish permissions say.
 */
export class ResponseAllowance {
  readonly #pending = new Map<string, PendingReply>();

  constructor(private readonly limits: { readonly max: number; readonly expires: number }) {}

  /** A message with this reply subject was delivered to the connection. */
  received(reply: string): void {
    this.#pending.set(reply, { receivedAt: Date.now(), sent: 0 });
    if (this.#pending.size > SWEEP_AT) this.#sweep();
  }

  /** Whether one more publish to `subject` is a response the connection may still send; counts it. */
  allows(subject: string): boolean {
    const pending = this.#pending.get(subject);
    if (pending === undefined) return false;
    pending.sent++;
    if (this.#usedUp(pending, Date.now())) {
      this.#pending.delete(subject);
      return false;
    }
    return true;
  }

  /** A limit of 0 or less is no limit, as in nats-server. */
  #usedUp(pending: PendingReply, now: number, sent = pending.sent): boolean {
    const { max, expires } = this.limits;
    return (max > 0 && sent > max) || (expires > 0 && now - pending.receivedAt > expires);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [reply, pending] of this.#pending) {
      // A reply already sent max times is used up: its next publish would be refused.
      if (this.#usedUp(pending, now, pending.sent + 1)) this.#pending.delete(reply);
    }
  }
}
