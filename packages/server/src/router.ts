import type { ClientConnection } from './client-connection.js';
import { FramePartsCache, OutgoingMessage } from './outgoing-message.js';
import { Sublist } from './sublist.js';
import type { Subscription } from './subscription.js';

/** The status block nats-server sends for a request nobody listens to: `NATS/1.0 503` and a blank line. */
const NO_RESPONDERS = Buffer.from('NATS/1.0 503\r\n\r\n');
const EMPTY = new Uint8Array(0);

/**
 * Subject interest and message fan-out for the whole server: every plain subscription whose
 * subject matches gets the message, and each queue group gets it once, on a member picked at
 * random (a member that cannot take it, e.g. the publisher's own with echo off, is skipped).
 */
export class Router {
  readonly sublist = new Sublist<Subscription>();
  readonly #message = new OutgoingMessage(new FramePartsCache());

  /** False when the subject is not a valid subscribe subject. */
  subscribe(sub: Subscription): boolean {
    return this.sublist.insert(sub);
  }

  unsubscribe(sub: Subscription): void {
    if (sub.closed) return;
    sub.closed = true;
    this.sublist.remove(sub);
  }

  /** Routes one publish. */
  publish(
    from: ClientConnection,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): void {
    const result = this.sublist.match(subject);
    let delivered = 0;
    if (result.psubs.length > 0 || result.qsubs.length > 0) {
      const receivers = result.psubs.length + result.qsubs.length;
      const message = this.#message.reset(subject, reply, headers, payload, receivers > 1);
      for (const sub of result.psubs) {
        if (this.#deliver(from, sub, message)) delivered++;
      }
      for (const group of result.qsubs) {
        const size = group.length;
        const start = Math.floor(Math.random() * size);
        for (let i = 0; i < size; i++) {
          if (this.#deliver(from, group[(start + i) % size]!, message)) {
            delivered++;
            break;
          }
        }
      }
      message.release();
    }
    if (delivered === 0 && reply !== undefined && from.noResponders)
      this.#noResponders(from, reply);
  }

  #deliver(from: ClientConnection, sub: Subscription, message: OutgoingMessage): boolean {
    if (sub.closed) return false;
    if (sub.client === from && !from.echo) return false;
    this.#send(sub, message);
    return true;
  }

  #send(sub: Subscription, message: OutgoingMessage): void {
    sub.delivered++;
    sub.client.sent(sub, message.subject, message.writeTo(sub));
    if (sub.max !== undefined && sub.delivered >= sub.max) sub.client.removeSubscription(sub);
  }

  /**
   * The publisher asked (CONNECT no_responders) to learn at once that a request has no
   * receivers: an empty HMSG with status 503 on the publisher's own subscription to the reply.
   */
  #noResponders(from: ClientConnection, reply: string): void {
    const sub = this.sublist.match(reply).psubs.find((s) => s.client === from && !s.closed);
    if (!sub) return;
    const message = this.#message.reset(reply, undefined, NO_RESPONDERS, EMPTY, false);
    this.#send(sub, message);
    message.release();
  }
}
