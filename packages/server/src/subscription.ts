import { encodeSubject, hasWildcard } from '@slipstream/protocol';
import type { Subscriber } from './subscriber.js';

/** One SUB of one connection, or one subscription of an internal subscriber. */
export class Subscription {
  /** True when the subject has no wildcard: every message it gets carries exactly this subject. */
  readonly literal: boolean;
  /** Messages delivered so far. */
  delivered = 0;
  /** Auto-unsubscribe after this many messages (UNSUB with max); undefined = no limit. */
  max: number | undefined;
  /** Set once the subscription is gone, so a fan-out already in progress skips it. */
  closed = false;
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
