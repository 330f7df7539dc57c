import { subjectMatches } from '@slipstream/protocol';
import { activeTrace, untraced } from './msg-trace.js';
import type { OutgoingMessage } from './outgoing-message.js';
import type { Router } from './router.js';
import { type Subscriber, Subscription } from './subscription.js';

/**
 * A message as an internal subscriber sees it. It runs inside Router.publish and the payload and
 * headers may be views into a client's socket chunk: copy what must outlive the callback.
 */
export type InternalMessage = Readonly<
  Pick<OutgoingMessage, 'subject' | 'reply' | 'headers' | 'payload'>
>;

export type InternalHandler = (message: InternalMessage) => void;

/**
 * A client of the server itself, with no socket (nats-server's system and JetStream clients): it
 * subscribes with callbacks and publishes into the same router as every connection, so what it
 * offers (an API, a stream's capture) is reached by ordinary subjects. A callback may publish;
 * the router is re-entrant.
 */
export class InternalClient implements Subscriber {
  readonly echo = true;
  readonly noResponders = false;
  readonly #router: Router;
  readonly #handlers = new Map<Subscription, InternalHandler>();
  #nextSid = 1;

  constructor(
    readonly cid: number,
    router: Router,
  ) {
    this.#router = router;
  }

  /** Calls `handler` for every message on `subject` (once per group when `queue` is given). */
  subscribe(subject: string, handler: InternalHandler, queue?: string): Subscription {
    const sub = new Subscription(this, subject, queue, String(this.#nextSid++));
    if (!this.#router.subscribe(sub)) {
      throw new RangeError(`internal subscription to an invalid subject: ${subject}`);
    }
    this.#handlers.set(sub, handler);
    return sub;
  }

  unsubscribe(sub: Subscription): void {
    this.#handlers.delete(sub);
    this.#router.unsubscribe(sub);
  }

  /** Publishes; `shownSubject` is the subject receivers see (Router.publish). */
  publish(
    subject: string,
    payload: Uint8Array,
    options: { reply?: string; headers?: Uint8Array; shownSubject?: string } = {},
  ): void {
    // Even from inside a traced message's fan-out, what the server publishes is not traced.
    if (activeTrace()) {
      untraced(() => this.publish(subject, payload, options));
      return;
    }
    this.#router.publish(
      this,
      subject,
      options.reply,
      options.headers,
      payload,
      options.shownSubject,
    );
  }

  /** Answers one request on its reply subject (Router.respond). */
  respond(reply: string, payload: Uint8Array, headers?: Uint8Array): void {
    if (activeTrace()) {
      untraced(() => this.respond(reply, payload, headers));
      return;
    }
    this.#router.respond(this, reply, headers, payload);
  }

  /**
   * Whether a publish on `subject` would reach any subscriber, so an event nobody listens to
   * (an advisory, say) is neither built nor sent.
   */
  hasInterest(subject: string): boolean {
    const result = this.#router.sublist.match(subject);
    return result.psubs.length > 0 || result.qsubs.length > 0;
  }

  /**
   * Calls `listener` once, when a subscription that receives `subject` appears; returns the
   * function that stops waiting.
   */
  whenInterest(subject: string, listener: () => void): () => void {
    const stop = this.#router.onSubscribe((sub) => {
      if (!subjectMatches(subject, sub.subject)) return;
      stop();
      listener();
    });
    return stop;
  }

  /** Drops every subscription. */
  close(): void {
    for (const sub of [...this.#handlers.keys()]) this.unsubscribe(sub);
  }

  deliver(sub: Subscription, message: OutgoingMessage): boolean {
    this.#handlers.get(sub)?.(message);
    return true;
  }

  removeSubscription(sub: Subscription): void {
    this.unsubscribe(sub);
  }
}
