import type { ClientConnection } from './client-connection.js';

/** One SUB of one connection. */
export class Subscription {
  /** The sid as bytes, written into every MSG for this subscription. */
  readonly sidBytes: Uint8Array;
  /** Messages delivered so far. */
  delivered = 0;
  /** Auto-unsubscribe after this many messages (UNSUB with max); undefined = no limit. */
  max: number | undefined;
  /** Set once the subscription is gone, so a fan-out already in progress skips it. */
  closed = false;

  constructor(
    readonly client: ClientConnection,
    readonly subject: string,
    readonly queue: string | undefined,
    readonly sid: string,
  ) {
    this.sidBytes = Buffer.from(sid);
  }
}
