import { encodeSubject, hasWildcard } from '@slipstream/protocol';
import type { MessageTarget, OutgoingMessage } from './outgoing-message.js';

/**
 * Whoever holds subscriptions and receives what they match: a client connection, which frames
 * the message into its outbound buffer, a client of the server itself with no socket
 * (`InternalClient`), which hands it to a callback, as nats-server's internal subscriptions do,
 * or an import bridge, which carries it into another account.
 */
export interface Subscriber {
  /** The connection id /connz and /subsz show. */
  readonly cid: number;
  /** False when the subscriber must not receive its own publishes (CONNECT `echo: false`). */
  readonly echo: boolean;
  /** True when a request nobody receives is answered at once with a 503 (CONNECT `no_responders`). */
  readonly noResponders: boolean;
  /** A client connection's account, which message traces name; an internal subscriber has none. */
  readonly account?: { readonly name: string };
  /** A client connection's CONNECT name (empty for none), which message traces name. */
  readonly name?: string;
  /** Round-trip time in ms, for a connection that has one (a service import reports it). */
  readonly rtt?: number | undefined;
  /**
   * Takes one message `publisher` sent, routed to `sub` on `subject` (the subject matched, which
   * differs from the message's shown subject for a JetStream delivery). Runs inside
   * Router.publish: the message's payload and headers may be views into a socket chunk, valid
   * only during the call. True when it took the message; false when it went nowhere (a bridge
   * into another account where nobody listens), so no_responders still answers.
   */
  deliver(
    sub: Subscription,
    message: OutgoingMessage,
    subject: string,
    publisher: Subscriber,
  ): boolean;
  /** Drops `sub` (its UNSUB max was reached). */
  removeSubscription(sub: Subscription): void;
  /**
   * Present on another server's connection (a leaf node), whose subscriptions stand for that
   * server's interest: a publish reaches it at most once whatever number of them match, with the
   * names of the queue groups it is to serve there (`Router` calls this instead of `deliver`),
   * and a queue group picks such a member only when no local one takes the message, as
   * nats-server does.
   */
  deliverRemote?(
    message: OutgoingMessage,
    subject: string,
    queues: readonly string[],
    publisher: Subscriber,
  ): boolean;
  /**
   * True for another member of our cluster (a route): its queue members are drawn together
   * with the local ones, by the weights it announced, as nats-server spreads a queue group over
   * its cluster; and what it sends us is served by local members only.
   */
  readonly clusterMember?: boolean;
}

/** One SUB of one connection, or one subscription of an internal subscriber. */
export class Subscription implements MessageTarget {
  /** True when the subject has no wildcard: every message it gets carries exactly this subject. */
  readonly literal: boolean;
  /** Messages delivered so far. */
  delivered = 0;
  /** Auto-unsubscribe after this many messages (UNSUB with max); undefined = no limit. */
  max: number | undefined;
  /** Set once the subscription is gone, so a fan-out already in progress skips it. */
  closed = false;
  /**
   * The queue members it stands for: 1, or for another server's queue group (a leaf node's
   * LS+), the count that server announced, by which the router draws among such members.
   */
  weight = 1;
  /**
   * True for a message subject the subscriber may not receive: set when the subscription's
   * wildcard covers subjects its user's permissions deny.
   */
  refuses: ((subject: string) => boolean) | undefined;
  #sid: Uint8Array | undefined;
  #msgStart: Uint8Array | undefined;
  #hmsgStart: Uint8Array | undefined;

  constructor(
    readonly subscriber: Subscriber,
    readonly subject: string,
    readonly queue: string | undefined,
    readonly sid: string,
  ) {
    this.literal = !hasWildcard(subject);
  }

  /**
   * The sid as bytes, for a wildcard subscription: its line start is the subject's cached head
   * then this. A literal one never needs it, so it is encoded on first use.
   */
  sidBytes(): Uint8Array {
    return (this.#sid ??= encodeSubject(this.sid));
  }

  /** `MSG <subject> <sid>`, for a literal subscription. */
  msgStart(): Uint8Array {
    return (this.#msgStart ??= encodeSubject(`MSG ${this.subject} ${this.sid}`));
  }

  /** `HMSG <subject> <sid>`, for a literal subscription. */
  hmsgStart(): Uint8Array {
    return (this.#hmsgStart ??= encodeSubject(`HMSG ${this.subject} ${this.sid}`));
  }
}
