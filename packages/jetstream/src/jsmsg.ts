import type { Msg, NatsConnection } from '@slipstream/client';
import {
  type AckBody,
  formatAckBody,
  nanos,
  type PullRequest,
  parseAckSubject,
} from '@slipstream/jsapi';
import type { MsgHdrs } from '@slipstream/protocol';
import { JetStreamError } from './errors.js';
import { serverFeature } from './features.js';

/** What the ack subject of a delivered message says about it; the fields of nats.js. */
export interface DeliveryInfo {
  /** The JetStream domain ('' when none, and always '' with the 9-token ack subject). */
  domain: string;
  account_hash?: string;
  stream: string;
  consumer: string;
  /** 1 on the first delivery, more on redeliveries. */
  deliveryCount: number;
  streamSequence: number;
  /** The consumer's sequence of this delivery. */
  deliverySequence: number;
  /** When the message was stored, nanoseconds since the epoch (a number: ~µs precision). */
  timestampNanos: number;
  /** Messages left for the consumer after this one. */
  pending: number;
  redelivered: boolean;
}

/** What `next()` asks for along with its ack (nats.js's Partial<PullOptions>). */
export interface AckNextOptions {
  /** Messages to send (default 1). */
  batch?: number;
  /** Answer at once with what there is (a 404 status when nothing). */
  no_wait?: boolean;
  /** Milliseconds the request waits for messages. */
  expires?: number;
}

/** A message delivered by a consumer, acknowledged through its reply subject. */
export interface JsMsg {
  /** The core message as delivered (nats.js's JsMsgImpl.msg). */
  readonly msg: Msg;
  /** Its reply subject: the ack subject. */
  readonly reply: string;
  readonly subject: string;
  readonly sid: number;
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
  readonly info: DeliveryInfo;
  readonly redelivered: boolean;
  /** The stream sequence. */
  readonly seq: number;
  readonly time: Date;
  /** The stored time as RFC 3339 (millisecond precision, from the ack subject). */
  readonly timestamp: string;
  readonly timestampNanos: bigint;
  /** Done with the message. */
  ack(): void;
  /** Redeliver it, now or after `millis`. */
  nak(millis?: number): void;
  /** Still working on it: the ack timer starts again. */
  working(): void;
  /** Never redeliver it; the reason shows in the server's advisory. */
  term(reason?: string): void;
  /**
   * Acks it and asks the consumer for more (+NXT), delivered to `subject`; as in nats.js, a
   * later ack still goes out.
   */
  next(subject: string, options?: AckNextOptions): void;
  /**
   * Acks and waits for the server to confirm it (a double ack): true once confirmed, false when
   * the message was already acknowledged.
   */
  ackAck(options?: { timeout?: number }): Promise<boolean>;
  json<T = unknown>(): T;
  string(): string;
}

/**
 * Wraps a delivered message. Every ack but `working()` is final: later calls send nothing, as
 * the server would ignore them anyway.
 */
export class JsMsgImpl implements JsMsg {
  readonly info: DeliveryInfo;
  readonly timestampNanos: bigint;
  readonly msg: Msg;
  readonly #nc: NatsConnection;
  readonly #ackTimeout: number;
  #acked = false;

  constructor(msg: Msg, nc: NatsConnection, ackTimeout: number) {
    const parsed = msg.reply ? parseAckSubject(msg.reply) : undefined;
    if (!parsed) throw new JetStreamError(`not a JetStream message: reply '${msg.reply ?? ''}'`);
    this.msg = msg;
    this.#nc = nc;
    this.#ackTimeout = ackTimeout;
    this.timestampNanos = parsed.timestampNanos;
    this.info = {
      domain: parsed.domain ?? '',
      // '' with the 9-token ack subject, as nats.js gives it
      account_hash: parsed.accountHash ?? '',
      stream: parsed.stream,
      consumer: parsed.consumer,
      deliveryCount: parsed.delivered,
      streamSequence: parsed.streamSequence,
      deliverySequence: parsed.consumerSequence,
      timestampNanos: Number(parsed.timestampNanos),
      pending: parsed.pending,
      redelivered: parsed.delivered > 1,
    };
  }

  get reply(): string {
    return this.msg.reply ?? '';
  }
  get subject() {
    return this.msg.subject;
  }
  get sid() {
    return this.msg.sid;
  }
  get data() {
    return this.msg.data;
  }
  get headers() {
    return this.msg.headers;
  }
  get redelivered() {
    return this.info.redelivered;
  }
  get seq() {
    return this.info.streamSequence;
  }
  get time() {
    return new Date(Number(this.timestampNanos / 1_000_000n));
  }
  get timestamp() {
    return this.time.toISOString();
  }

  ack(): void {
    this.#send({ kind: 'ack' });
  }

  nak(millis?: number): void {
    this.#send(millis ? { kind: 'nak', delayNanos: nanos(millis) } : { kind: 'nak' });
  }

  working(): void {
    this.#send({ kind: 'progress' });
  }

  term(reason?: string): void {
    // nats-server before 2.10 ignores a +TERM with a reason, and redelivers (seen with 2.9.10)
    const withReason = reason && serverFeature(this.#nc, 'JS_TERM_REASON').ok;
    this.#send(withReason ? { kind: 'term', reason } : { kind: 'term' });
  }

  next(subject: string, options: AckNextOptions = {}): void {
    const request: PullRequest = { batch: options.batch || 1, no_wait: options.no_wait ?? false };
    if (options.expires && options.expires > 0) request.expires = nanos(options.expires);
    this.msg.respond(formatAckBody({ kind: 'next', request }), { reply: subject });
  }

  async ackAck(options: { timeout?: number } = {}): Promise<boolean> {
    if (this.#acked) return false;
    this.#acked = true;
    await this.#nc.request(this.msg.reply!, formatAckBody({ kind: 'ack' }), {
      timeout: options.timeout ?? this.#ackTimeout,
    });
    return true;
  }

  json<T = unknown>(): T {
    return this.msg.json<T>();
  }

  string(): string {
    return this.msg.string();
  }

  #send(body: AckBody): void {
    if (this.#acked) return;
    this.#acked = body.kind !== 'progress';
    this.msg.respond(formatAckBody(body));
  }
}
