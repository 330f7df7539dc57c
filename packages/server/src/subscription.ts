import { hasWildcard } from '@slipstream/protocol';
import type { ClientConnection } from './client-connection.js';

/** One SUB of one connection. */
export class Subscription {
  /** The sid as bytes, written into every MSG for this subscription. */
  readonly sidBytes: Uint8Array;
  /** True when the subject has no wildcard: every message it gets carries exactly this subject. */
  readonly literal: boolean;
  /** Messages delivered so far. */
  delivered = 0;
  /** Auto-unsubscribe after this many messages (UNSUB with max); undefined = no limit. */
  max: number | undefined;
  /** Set once the subscription is gone, so a fan-out already in progress skips it. */
  closed = false;
  #msgStart: Uint8Array | undefined;
  #hmsgStart: Uint8Array | undefined;

  constructor(
    readonly client: ClientConnection,
    readonly subject: string,
    readonly queue: string | undefined,
    readonly sid: string,
  ) {
    this.sidBytes = Buffer.from(sid);
    this.literal = !hasWildcard(subject);
  }

  /** `MSG <subject> <sid>`, for a literal subscription. */
  msgStart(): Uint8Array {
    return (this.#msgStart ??= Buffer.from(`MSG ${this.subject} ${this.sid}`));
  }

  /** `HMSG <subject> <sid>`, for a literal subscription. */
  hmsgStart(): Uint8Array {
    return (this.#hmsgStart ??= Buffer.from(`HMSG ${this.subject} ${this.sid}`));
  }
}
