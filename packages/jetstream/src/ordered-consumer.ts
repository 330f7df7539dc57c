import type { ConsumerConfig, ConsumerInfo, DeliverPolicy, ReplayPolicy } from '@slipstream/jsapi';
import { nanos } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import { ConsumerNotFoundError, JetStreamError } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import { checkStreamName } from './names.js';
import { OrderedConsumerMessages, type OrderedCursor } from './ordered-consumer-messages.js';
import type { ConsumerMessages } from './pull-batch.js';
import {
  type ConsumeOptions,
  type Consumer,
  type FetchOptions,
  type NextOptions,
  PullConsumerImpl,
} from './pull-consumer.js';

/** What an ordered consumer reads; the subset of ConsumerConfig nats.js allows. */
export interface OrderedConsumerOptions {
  /** Prefix of the names of the consumers it creates (`<prefix>_<n>`). */
  name_prefix: string;
  filter_subjects: string[] | string;
  deliver_policy: DeliverPolicy;
  opt_start_seq: number;
  opt_start_time: string;
  replay_policy: ReplayPolicy;
  /** Milliseconds the server keeps an unused consumer (default 5 minutes). */
  inactive_threshold: number;
  headers_only: boolean;
}

const DEFAULT_INACTIVE_THRESHOLD_MS = 5 * 60_000;
/** consume()'s default, as in pull-consumer.ts. */
const DEFAULT_EXPIRES_MS = 30_000;

/**
 * An ordered consumer, as nats.js v3's: the client creates ephemeral pull consumers (no acks,
 * in memory, one replica) and checks that each delivery is the next of the consumer's
 * sequence. On a gap, a deleted consumer or a lost one (a server restart), it creates a new
 * consumer that starts after the last stream sequence it handed out, so the reader sees every
 * message once, in order. Messages need no ack. `fetch`/`next` and `consume` must not run at
 * the same time.
 */
export class OrderedConsumerImpl implements Consumer, OrderedCursor {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;
  readonly #stream: string;
  readonly #options: Partial<OrderedConsumerOptions>;
  readonly #namePrefix: string;
  #serial = 0;
  /** The last stream sequence handed out; 0 before the first. */
  #streamSeq = 0;
  /** The consumer sequence of the last delivery of the current consumer. */
  #deliverySeq = 0;
  #current: PullConsumerImpl | undefined;

  constructor(
    api: ApiClient,
    consumers: ConsumerAPI,
    stream: string,
    options: Partial<OrderedConsumerOptions> = {},
  ) {
    this.#api = api;
    this.#consumers = consumers;
    this.#stream = checkStreamName(stream);
    this.#options = options;
    this.#namePrefix = options.name_prefix ?? nuid.next();
  }

  /** The info of the consumer in use (created if there is none yet). */
  async info(cached = false): Promise<ConsumerInfo> {
    return (await this.#consumer()).info(cached);
  }

  async next(options: NextOptions = {}): Promise<JsMsg | null> {
    const batch = await this.fetch({ ...options, max_messages: 1 });
    for await (const msg of batch) return msg;
    return null;
  }

  async fetch(options: FetchOptions = {}): Promise<ConsumerMessages> {
    const consumer = await this.#consumer();
    return new OrderedConsumerMessages(this, await consumer.fetch(options));
  }

  /**
   * Messages until `close()`. The consumer is checked for after two idle heartbeats without a
   * message (default: expires), and replaced when the server lost it.
   */
  async consume(options: ConsumeOptions = {}): Promise<ConsumerMessages> {
    const open = async () => (await this.#consumer()).consume(options);
    const heartbeat = options.idle_heartbeat ?? (options.expires ?? DEFAULT_EXPIRES_MS) / 2;
    return new OrderedConsumerMessages(this, await open(), { open, idleCheck: 2 * heartbeat });
  }

  async delete(): Promise<boolean> {
    const current = this.#current;
    this.#current = undefined;
    return current ? current.delete() : false;
  }

  /**
   * True when `msg` is the next delivery of the consumer in use; then it becomes the position
   * to resume from. False on a gap or a message of an older consumer: the caller must `reset()`.
   */
  accept(msg: JsMsg): boolean {
    const { consumer, deliverySequence, streamSequence } = msg.info;
    if (consumer !== this.#currentName() || deliverySequence !== this.#deliverySeq + 1) {
      return false;
    }
    this.#deliverySeq = deliverySequence;
    this.#streamSeq = streamSequence;
    return true;
  }

  async exists(): Promise<boolean> {
    if (!this.#current) return true;
    try {
      await this.#current.info();
      return true;
    } catch (error) {
      if (error instanceof ConsumerNotFoundError) return false;
      throw error;
    }
  }

  /** Drops the consumer in use; the next read creates one after the last sequence seen. */
  reset(): void {
    const old = this.#current;
    this.#current = undefined;
    // best effort: an unused consumer also goes away after its inactive_threshold
    old?.delete().catch(() => undefined);
  }

  #currentName(): string {
    return `${this.#namePrefix}_${this.#serial}`;
  }

  async #consumer(): Promise<PullConsumerImpl> {
    if (this.#current) return this.#current;
    this.#serial++;
    this.#deliverySeq = 0;
    const info = await this.#consumers.add(this.#stream, this.#config());
    this.#current = new PullConsumerImpl(this.#api, this.#consumers, info);
    return this.#current;
  }

  #config(): ConsumerConfig {
    const o = this.#options;
    const config: ConsumerConfig = {
      name: this.#currentName(),
      ack_policy: 'none',
      max_deliver: 1,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: nanos(o.inactive_threshold ?? DEFAULT_INACTIVE_THRESHOLD_MS),
      deliver_policy: o.deliver_policy ?? 'all',
    };
    if (o.replay_policy) config.replay_policy = o.replay_policy;
    if (o.headers_only) config.headers_only = true;
    const filters = typeof o.filter_subjects === 'string' ? [o.filter_subjects] : o.filter_subjects;
    // one filter in the field every server knows; several need nats-server 2.10
    if (filters?.length === 1) config.filter_subject = filters[0]!;
    else if (filters?.length) config.filter_subjects = filters;
    if (this.#streamSeq > 0) {
      config.deliver_policy = 'by_start_sequence';
      config.opt_start_seq = this.#streamSeq + 1;
    } else if (config.deliver_policy === 'by_start_sequence') {
      if (!o.opt_start_seq)
        throw new JetStreamError('deliver_policy by_start_sequence needs opt_start_seq');
      config.opt_start_seq = o.opt_start_seq;
    } else if (config.deliver_policy === 'by_start_time') {
      if (!o.opt_start_time)
        throw new JetStreamError('deliver_policy by_start_time needs opt_start_time');
      config.opt_start_time = o.opt_start_time;
    }
    return config;
  }
}
