import type { Account } from './accounts/account.js';
import type { OutgoingMessage } from './outgoing-message.js';
import type { Subscription } from './subscription.js';

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
  readonly account?: Account;
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
}
