import type { OutgoingMessage } from '../outgoing-message.js';
import type { Router } from '../router.js';
import { type Subscriber, Subscription } from '../subscription.js';
import type { ResponseType } from './account-options.js';
import type { LatencyFailure, TrackedRequest } from './service-latency.js';

/** How a service's responses are expected: its reply mapping lives that long. */
export interface ResponsePolicy {
  readonly type: ResponseType;
  /** Milliseconds a mapping may stay unused. */
  readonly threshold: number;
}

/**
 * Imports chained into a loop (A imports from B what B imports from A) would forward a message
 * for ever; past this many hops within one publish it is dropped.
 */
const MAX_HOPS = 8;
let hops = 0;

/** A pull request's ack reply must reach the consumer as it is (nats-server leaves it alone). */
const JS_ACK_PREFIX = '$JS.ACK.';

/** What enters another account: a message in the form its new account sees it. */
export interface Forwarded {
  readonly subject: string;
  readonly reply: string | undefined;
  readonly headers: Uint8Array | undefined;
  readonly payload: Uint8Array;
  /** The subject receivers see when it differs from the one matched (a JetStream delivery). */
  readonly shownSubject?: string;
}

/**
 * The account a message is forwarded into, as forwarding needs it (an Account): its subject
 * space, and its reply mappings (ServiceResponses), which answer requesters in accounts `A`.
 */
export interface ForwardTarget<A> {
  readonly router: Router;
  readonly responses: {
    map(
      requester: A,
      reply: string,
      policy: ResponsePolicy,
      tracked: TrackedRequest | undefined,
    ): string;
    drop(mapped: string, why: LatencyFailure): void;
  };
}

/**
 * Carries one message from account `from` into account `to`. A reply subject is replaced by a
 * fresh `_R_.` subject of `to`, mapped back to the original in `from`, so whoever answers in
 * `to` reaches the requester (nats-server's response service imports). True when some
 * subscriber of `to` took the message.
 */
export function forward<A>(
  bridge: Subscriber,
  from: A,
  to: ForwardTarget<A>,
  message: Forwarded,
  /** Set for a service request or response, whose reply is mapped; a stream keeps its reply. */
  responses: ResponsePolicy | undefined,
  /** A request whose latency is measured, reported when its mapping ends. */
  tracked?: TrackedRequest,
): boolean {
  if (hops >= MAX_HOPS) return false;
  const { subject, reply, headers, payload, shownSubject } = message;
  const mapped =
    reply === undefined || responses === undefined || reply.startsWith(JS_ACK_PREFIX)
      ? reply
      : to.responses.map(from, reply, responses, tracked);
  hops++;
  let delivered: boolean;
  try {
    delivered = to.router.route(bridge, subject, mapped, headers, payload, shownSubject);
  } finally {
    hops--;
  }
  if (!delivered && mapped !== reply && mapped !== undefined) {
    to.responses.drop(mapped, 'serviceUnavailable');
  }
  return delivered;
}

/**
 * The subscriber side of an import: it holds subscriptions in one account's router and carries
 * what they match elsewhere (`carry`), never echoing and never asking for no_responders.
 */
export class Bridge implements Subscriber {
  readonly cid = 0;
  readonly echo = true;
  readonly noResponders = false;
  #nextSid = 1;

  constructor(
    private readonly carry: (
      message: OutgoingMessage,
      subject: string,
      publisher: Subscriber,
    ) => boolean,
  ) {}

  deliver(
    _sub: Subscription,
    message: OutgoingMessage,
    subject: string,
    publisher: Subscriber,
  ): boolean {
    return this.carry(message, subject, publisher);
  }

  /** A subscription of this bridge, for the caller to add to a router. */
  subscription(subject: string): Subscription {
    return new Subscription(this, subject, undefined, String(this.#nextSid++));
  }

  removeSubscription(): void {}
}
