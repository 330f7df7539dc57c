import type { ClientConnection } from './client-connection.js';
import { Sublist } from './sublist.js';
import type { Subscription } from './subscription.js';

const CRLF = Buffer.from('\r\n');
/** The status block nats-server sends for a request nobody listens to: `NATS/1.0 503` and a blank line. */
const NO_RESPONDERS = Buffer.from('NATS/1.0 503\r\n\r\n');

/**
 * One publish, encoded at most once per form and shared by every receiver: the frame is
 * `head` + sid + `tail` + [headers] + payload + CRLF, so only the sid is written per subscriber.
 * `head` and `tail` are views of one buffer and share the space that precedes the sid's successor.
 */
export class OutgoingMessage {
  #plain: [head: Uint8Array, tail: Uint8Array] | undefined;
  #withHeaders: [head: Uint8Array, tail: Uint8Array] | undefined;

  constructor(
    readonly subject: string,
    readonly reply: string | undefined,
    readonly headers: Uint8Array | undefined,
    readonly payload: Uint8Array,
  ) {}

  /** Appends this message for `sub` to its connection's outbound buffer; returns bytes counted for stats. */
  writeTo(sub: Subscription): number {
    const client = sub.client;
    const writer = client.outbound.writer;
    const headers = this.headers;
    if (headers !== undefined && client.headers) {
      const [head, tail] = (this.#withHeaders ??= this.#encode(
        'HMSG',
        `${headers.length} ${headers.length + this.payload.length}`,
      ));
      writer.bytes(head);
      writer.bytes(sub.sidBytes);
      writer.bytes(tail);
      writer.bytes(headers);
    } else {
      // A client that did not negotiate headers gets the payload alone (nats-server strips them).
      const [head, tail] = (this.#plain ??= this.#encode('MSG', `${this.payload.length}`));
      writer.bytes(head);
      writer.bytes(sub.sidBytes);
      writer.bytes(tail);
    }
    writer.bytes(this.payload);
    writer.bytes(CRLF);
    return this.payload.length + (headers !== undefined && client.headers ? headers.length : 0);
  }

  #encode(op: string, sizes: string): [Uint8Array, Uint8Array] {
    const head = `${op} ${this.subject} `;
    const line = Buffer.from(
      `${head}${this.reply === undefined ? '' : `${this.reply} `}${sizes}\r\n`,
    );
    // `head` ends with a space and the tail starts with one: the same byte serves both.
    const headLength = Buffer.byteLength(head);
    return [line.subarray(0, headLength), line.subarray(headLength - 1)];
  }
}

/**
 * Subject interest and message fan-out for the whole server: every plain subscription whose
 * subject matches gets the message, and each queue group gets it once, on a member picked at
 * random (a member that cannot take it, e.g. the publisher's own with echo off, is skipped).
 */
export class Router {
  readonly sublist = new Sublist<Subscription>();

  /** False when the subject is not a valid subscribe subject. */
  subscribe(sub: Subscription): boolean {
    return this.sublist.insert(sub);
  }

  unsubscribe(sub: Subscription): void {
    if (sub.closed) return;
    sub.closed = true;
    this.sublist.remove(sub);
  }

  /** Routes one publish; returns how many subscriptions received it. */
  publish(
    from: ClientConnection,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): number {
    const result = this.sublist.match(subject);
    let delivered = 0;
    if (result.psubs.length > 0 || result.qsubs.length > 0) {
      const message = new OutgoingMessage(subject, reply, headers, payload);
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
    }
    if (delivered === 0 && reply !== undefined && from.noResponders)
      this.#noResponders(from, reply);
    return delivered;
  }

  #deliver(from: ClientConnection, sub: Subscription, message: OutgoingMessage): boolean {
    if (sub.closed) return false;
    if (sub.client === from && !from.echo) return false;
    this.#send(sub, message);
    return true;
  }

  #send(sub: Subscription, message: OutgoingMessage): void {
    sub.delivered++;
    sub.client.sent(message.writeTo(sub));
    if (sub.max !== undefined && sub.delivered >= sub.max) sub.client.removeSubscription(sub);
  }

  /**
   * The publisher asked (CONNECT no_responders) to learn at once that a request has no
   * receivers: an empty HMSG with status 503 on the publisher's own subscription to the reply.
   */
  #noResponders(from: ClientConnection, reply: string): void {
    const sub = this.sublist.match(reply).psubs.find((s) => s.client === from && !s.closed);
    if (!sub) return;
    this.#send(sub, new OutgoingMessage(reply, undefined, NO_RESPONDERS, new Uint8Array(0)));
  }
}
