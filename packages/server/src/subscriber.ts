import type { OutgoingMessage } from './outgoing-message.js';
import type { Subscription } from './subscription.js';

/**
 * Whoever holds subscriptions and receives what they match: a client connection, which frames
 * the message into its outbound buffer, or a client of the server itself with no socket
 * (`InternalClient`), which hands it to a callback, as nats-server's internal subscriptions do.
 */
export interface Subscriber {
  /** The connection id /connz and /subsz show. */
  readonly cid: number;
  /** False when the subscriber must not receive its own publishes (CONNECT `echo: false`). */
  readonly echo: boolean;
  /** True when a request nobody receives is answered at once with a 503 (CONNECT `no_responders`). */
  readonly noResponders: boolean;
  /**
   * Takes one message routed to `sub`. Runs inside Router.publish: the message's payload and
   * headers may be views into a socket chunk, valid only during the call.
   */
  deliver(sub: Subscription, message: OutgoingMessage): void;
  /** Drops `sub` (its UNSUB max was reached). */
  removeSubscription(sub: Subscription): void;
}
