import { InvalidArgumentError } from '@slipstream/client';
import type { ConsumerInfo } from '@slipstream/jsapi';
import { nanos } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import type { ConsumerMessages } from './consumption.js';
import { Delivery } from './delivery.js';
import { missingResource } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import { PullBatch } from './pull-batch.js';
import { PullConsume } from './pull-consume.js';

/** How long a pull may wait for messages, in milliseconds (default 30000). */
export interface Expires {
  expires?: number;
}

/**
 * nats.js's `bind`: never ask the server about the consumer (consumer info). A pull consumer
 * never does unless `abort_on_missing_resource` asks it to; an ordered consumer refuses it.
 */
export interface Bind {
  bind?: boolean;
}

/**
 * Hand each message to `callback` as it arrives instead of to an iterator (the iterator then
 * refuses to start); what it throws ends the consumption with that error.
 */
export interface ConsumeCallback {
  callback?: (msg: JsMsg) => void;
}

export type NextOptions = Expires & Bind;

/**
 * One pull: up to `max_messages` (default 100) and/or `max_bytes`; `idle_heartbeat`
 * (milliseconds, at most half of expires; default half of it, 500 ms to 30 s, from an expires
 * of a second on) lets a silent pull be told from a dead one. A
 * `callback` is honoured as nats.js honours it (its FetchOptions type leaves it out).
 */
export interface FetchOptions extends Expires, Bind, ConsumeCallback {
  max_messages?: number;
  max_bytes?: number;
  idle_heartbeat?: number;
}

/**
 * Endless consumption: about `max_messages` (default 100) on their way at any time, more asked
 * for once no more than `threshold_messages` (default 75% of max_messages) are still to come;
 * each request lives `expires` (at least 1000 ms), the server sends `idle_heartbeat`s (default
 * half of expires, 500 ms to 30 s) and two missed ones make the client ask again.
 */
export interface ConsumeOptions extends Expires, Bind, ConsumeCallback {
  max_messages?: number;
  threshold_messages?: number;
  /**
   * Bytes on their way at most; with it, max_messages defaults to no limit of its own and
   * more is asked for once no more than `threshold_bytes` (default 75%) are still to come.
   */
  max_bytes?: number;
  threshold_bytes?: number;
  idle_heartbeat?: number;
  /**
   * End the consumption with ConsumerNotFoundError or StreamNotFoundError when, after two
   * missed idle heartbeats, the consumer or its stream is found gone (not with `bind`).
   * Default: keep asking until they are back.
   */
  abort_on_missing_resource?: boolean;
}

/** A pull consumer, shaped like nats.js's Consumer. */
export interface Consumer {
  isPullConsumer(): boolean;
  isPushConsumer(): boolean;
  /** The consumer's info; `cached` answers the last one known without a request. */
  info(cached?: boolean): Promise<ConsumerInfo>;
  /** The next message, or null when none came before `expires`. */
  next(options?: NextOptions): Promise<JsMsg | null>;
  fetch(options?: FetchOptions): Promise<ConsumerMessages>;
  /** Messages as they come, until `close()` or a problem the server reports. */
  consume(options?: ConsumeOptions): Promise<ConsumerMessages>;
  delete(): Promise<boolean>;
}

const DEFAULT_EXPIRES_MS = 30_000;
/** Shorter requests would spend more on asking than on delivering. */
const MIN_CONSUME_EXPIRES_MS = 1000;
const DEFAULT_FETCH_MESSAGES = 100;
/** With only max_bytes given, the byte budget alone ends the pull. */
const BYTES_ONLY_BATCH = 1_000_000;

/**
 * The idle heartbeat of a fetch that names none, as nats.js sets it: half of expires, 0.5 to 30
 * s, so a pull nobody answers (its consumer gone) ends with an error instead of silently at
 * expiry. None for a pull shorter than a second (nats.js refuses those), which a heartbeat of at
 * least half a second would not fit.
 */
function fetchHeartbeat(expires: number): number {
  return expires < MIN_CONSUME_EXPIRES_MS ? 0 : boundedHeartbeat(expires / 2);
}

/** An idle heartbeat within nats.js's bounds: 0.5 to 30 s. */
const boundedHeartbeat = (ms: number) => Math.min(Math.max(ms, 500), 30_000);

const messagesAskedFor = (options: { max_messages?: number; max_bytes?: number }) =>
  options.max_messages ??
  (options.max_bytes === undefined ? DEFAULT_FETCH_MESSAGES : BYTES_ONLY_BATCH);

export class PullConsumerImpl implements Consumer {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;
  #info: ConsumerInfo;

  constructor(api: ApiClient, consumers: ConsumerAPI, info: ConsumerInfo) {
    this.#api = api;
    this.#consumers = consumers;
    this.#info = info;
  }

  isPullConsumer(): boolean {
    return true;
  }

  isPushConsumer(): boolean {
    return false;
  }

  async info(cached = false): Promise<ConsumerInfo> {
    if (!cached) this.#info = await this.#consumers.info(this.#info.stream_name, this.#info.name);
    return this.#info;
  }

  async next(options: NextOptions = {}): Promise<JsMsg | null> {
    const batch = await this.fetch({ expires: options.expires, max_messages: 1 });
    for await (const msg of batch) return msg;
    const error = await batch.closed();
    if (error) throw error;
    return null;
  }

  async fetch(options: FetchOptions = {}): Promise<ConsumerMessages> {
    return this.startFetch(options, new Delivery({ callback: options.callback }));
  }

  /** fetch(), handing the messages to `delivery` (an ordered consumer's, or a callback). */
  startFetch(options: FetchOptions, delivery: Delivery): PullBatch {
    const expires = options.expires ?? DEFAULT_EXPIRES_MS;
    const batch = messagesAskedFor(options);
    const request: ConstructorParameters<typeof PullBatch>[1]['request'] = {
      batch,
      expires: nanos(expires),
    };
    if (options.max_bytes !== undefined) request.max_bytes = options.max_bytes;
    const idleHeartbeat = options.idle_heartbeat ?? fetchHeartbeat(expires);
    if (idleHeartbeat) request.idle_heartbeat = nanos(idleHeartbeat);
    return new PullBatch(
      this.#api.nc,
      {
        subject: this.#nextSubject(),
        request,
        expires,
        idleHeartbeat,
        ackTimeout: this.#api.options.timeout,
      },
      delivery,
    );
  }

  async consume(options: ConsumeOptions = {}): Promise<ConsumerMessages> {
    return this.startConsume(options, new Delivery({ callback: options.callback }));
  }

  /** consume(), handing the messages to `delivery` (an ordered consumer's, or a callback). */
  startConsume(options: ConsumeOptions, delivery: Delivery): PullConsume {
    const expires = options.expires ?? DEFAULT_EXPIRES_MS;
    if (expires < MIN_CONSUME_EXPIRES_MS) {
      throw new InvalidArgumentError(
        `consume: expires must be at least ${MIN_CONSUME_EXPIRES_MS} ms`,
      );
    }
    const maxMessages = messagesAskedFor(options);
    const { max_bytes: maxBytes } = options;
    const abort = (options.abort_on_missing_resource ?? false) && !options.bind;
    return new PullConsume(
      this.#api.nc,
      {
        subject: this.#nextSubject(),
        consumer: this.#info.name,
        maxMessages,
        thresholdMessages: options.threshold_messages ?? Math.round(maxMessages * 0.75),
        ...(maxBytes === undefined
          ? {}
          : { maxBytes, thresholdBytes: options.threshold_bytes ?? Math.round(maxBytes * 0.75) }),
        expires,
        idleHeartbeat: boundedHeartbeat(options.idle_heartbeat ?? expires / 2),
        ackTimeout: this.#api.options.timeout,
        heartbeatsMissed: async () => (abort ? missingResource(() => this.info()) : undefined),
      },
      delivery,
    );
  }

  #nextSubject(): string {
    const { stream_name: stream, name: consumer } = this.#info;
    return this.#api.subject('consumerNext', { stream, consumer });
  }

  delete(): Promise<boolean> {
    return this.#consumers.delete(this.#info.stream_name, this.#info.name);
  }
}
