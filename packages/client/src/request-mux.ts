import { nuid } from '@slipstream/protocol';
import type { MsgImpl } from './msg.js';

/** One outstanding request waiting on the shared inbox. */
export interface PendingReply {
  /** The subject the request was published to. */
  readonly subject: string;
  /** Receives each reply; the reply owner removes itself when it has enough. */
  deliver(msg: MsgImpl): void;
  fail(error: Error): void;
}

/**
 * Routes replies of all requests through one wildcard subscription, `<prefix>.<nuid>.*`, so a
 * request costs no SUB/UNSUB round trip: the last token of the reply subject names the request.
 */
export class RequestMux {
  readonly prefix: string;
  #pending = new Map<string, PendingReply>();
  #counter = 0;

  constructor(inboxPrefix: string) {
    this.prefix = `${inboxPrefix}.${nuid.next()}.`;
  }

  get subject(): string {
    return `${this.prefix}*`;
  }

  /** Registers a request; returns its token and the reply subject to publish with. */
  add(pending: PendingReply): { token: string; reply: string } {
    const token = (++this.#counter).toString(36);
    this.#pending.set(token, pending);
    return { token, reply: this.prefix + token };
  }

  remove(token: string): void {
    this.#pending.delete(token);
  }

  dispatch(msg: MsgImpl): void {
    this.#pending.get(msg.subject.slice(this.prefix.length))?.deliver(msg);
  }

  /** Fails the oldest request published to `subject`: the server refused that publish. */
  failSubject(subject: string, error: Error): boolean {
    for (const [token, pending] of this.#pending) {
      if (pending.subject !== subject) continue;
      this.#pending.delete(token);
      pending.fail(error);
      return true;
    }
    return false;
  }

  failAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.fail(error);
  }
}
