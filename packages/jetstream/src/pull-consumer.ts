import type { ConsumerInfo } from '@slipstream/jsapi';
import { nanos } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import { JetStreamError } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import { type ConsumerMessages, PullBatch } from './pull-batch.js';

/** How long a pull may wait for messages, in milliseconds (default 30000). */
export interface Expires {
  expires?: number;
}

export type NextOptions = Expires;

/**
 * One pull: up to `max_messages` (default 100) and/or `max_bytes`; `idle_heartbeat`
 * (milliseconds, at most half of expires) lets a silent pull be told from a dead one.
 */
export interface FetchOptions extends Expires {
  max_messages?: number;
  max_bytes?: number;
  idle_heartbeat?: number;
}

/** A pull consumer, shaped like nats.js's Consumer. */
export interface Consumer {
  /** The consumer's info; `cached` answers the last one known without a request. */
  info(cached?: boolean): Promise<ConsumerInfo>;
  /** The next message, or null when none came before `expires`. */
  next(options?: NextOptions): Promise<JsMsg | null>;
  fetch(options?: FetchOptions): Promise<ConsumerMessages>;
  delete(): Promise<boolean>;
}

const DEFAULT_EXPIRES_MS = 30_000;
const DEFAULT_FETCH_MESSAGES = 100;
/** With only max_bytes given, the byte budget alone ends the pull. */
const BYTES_ONLY_BATCH = 1_000_000;

export class PullConsumerImpl implements Consumer {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;
  #info: ConsumerInfo;

  constructor(api: ApiClient, consumers: ConsumerAPI, info: ConsumerInfo) {
    this.#api = api;
    this.#consumers = consumers;
    this.#info = info;
  }

  async info(cached = false): Promise<ConsumerInfo> {
    if (!cached) this.#info = await this.#consumers.info(this.#info.stream_name, this.#info.name);
    return this.#info;
  }

  async next(options: NextOptions = {}): Promise<JsMsg | null> {
    const batch = await this.fetch({ ...options, max_messages: 1 });
    for await (const msg of batch) return msg;
    const error = await batch.closed();
    if (error) throw error;
    return null;
  }

  async fetch(options: FetchOptions = {}): Promise<ConsumerMessages> {
    const expires = options.expires ?? DEFAULT_EXPIRES_MS;
    const batch =
      options.max_messages ??
      (options.max_bytes === undefined ? DEFAULT_FETCH_MESSAGES : BYTES_ONLY_BATCH);
    const request: ConstructorParameters<typeof PullBatch>[1]['request'] = {
      batch,
      expires: nanos(expires),
    };
    if (options.max_bytes !== undefined) request.max_bytes = options.max_bytes;
    if (options.idle_heartbeat) request.idle_heartbeat = nanos(options.idle_heartbeat);
    const { stream_name: stream, name: consumer } = this.#info;
    return new PullBatch(this.#api.nc, {
      subject: this.#api.subject('consumerNext', { stream, consumer }),
      request,
      expires,
      idleHeartbeat: options.idle_heartbeat ?? 0,
      ackTimeout: this.#api.options.timeout,
    });
  }

  delete(): Promise<boolean> {
    return this.#consumers.delete(this.#info.stream_name, this.#info.name);
  }
}

/** Access to existing consumers, as nats.js's `js.consumers`. */
export interface Consumers {
  /** A pull consumer that exists on the server (its info is read first). */
  get(stream: string, name: string): Promise<Consumer>;
}

export class ConsumersImpl implements Consumers {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;

  constructor(api: ApiClient, consumers: ConsumerAPI) {
    this.#api = api;
    this.#consumers = consumers;
  }

  async get(stream: string, name: string): Promise<Consumer> {
    const info = await this.#consumers.info(stream, name);
    if (info.config.deliver_subject) {
      throw new JetStreamError(`consumer '${name}' is a push consumer: it cannot be pulled`);
    }
    return new PullConsumerImpl(this.#api, this.#consumers, info);
  }
}
