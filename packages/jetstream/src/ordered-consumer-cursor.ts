import type { ConsumerConfig, ConsumerInfo, DeliverPolicy, ReplayPolicy } from '@slipstream/jsapi';
import { nanos } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import type { ConsumerAPI } from './consumer-api.js';
import { ConsumerNotFoundError, JetStreamError } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import { checkStreamName } from './names.js';
import type { OrderedCursor } from './ordered-consumer-messages.js';

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

/** The consumer an ordered consumer reads through at a time. */
interface Underlying {
  info(cached?: boolean): Promise<ConsumerInfo>;
  delete(): Promise<boolean>;
}

const DEFAULT_INACTIVE_THRESHOLD_MS = 5 * 60_000;

/**
 * The part of an ordered consumer (nats.js v3's, pull or push) that keeps the order: it creates
 * ephemeral consumers (no acks, in memory, one replica) named `<prefix>_<n>`, checks that each
 * delivery is the next of the consumer's sequence, and after a `reset()` (a gap, a deleted or
 * lost consumer) creates the next one to start after the last stream sequence handed out, so
 * the reader sees every message once, in order.
 */
export abstract class OrderedConsumerCursor<C extends Underlying> implements OrderedCursor {
  protected readonly consumers: ConsumerAPI;
  readonly stream: string;
  readonly #options: Partial<OrderedConsumerOptions>;
  readonly #namePrefix: string;
  #serial = 0;
  /** The last stream sequence handed out; 0 before the first. */
  #streamSeq = 0;
  /** The consumer sequence of the last delivery of the current consumer. */
  #deliverySeq = 0;
  #current: C | undefined;
  /** The consumer used last, kept after a reset for `info(true)`. */
  #last: C | undefined;

  constructor(consumers: ConsumerAPI, stream: string, options: Partial<OrderedConsumerOptions>) {
    this.consumers = consumers;
    this.stream = checkStreamName(stream);
    this.#options = options;
    this.#namePrefix = options.name_prefix ?? nuid.next();
  }

  /** The config of the next consumer with what the flavour (pull or push) adds. */
  protected abstract flavour(config: ConsumerConfig): ConsumerConfig;
  /** The consumer to read through, once created. */
  protected abstract wrap(info: ConsumerInfo): C;

  /**
   * The info of the consumer in use (created if there is none yet); `cached`: the last known
   * one, also of a consumer already replaced or deleted.
   */
  async info(cached = false): Promise<ConsumerInfo> {
    const known = cached ? this.#last : undefined;
    return (known ?? (await this.current())).info(cached);
  }

  async delete(): Promise<boolean> {
    const current = this.#current;
    this.#current = undefined;
    return current ? current.delete() : false;
  }

  accept(msg: JsMsg): boolean {
    const { consumer, deliverySequence, streamSequence } = msg.info;
    if (consumer !== this.consumerName() || deliverySequence !== this.#deliverySeq + 1) {
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

  get position(): number {
    return this.#streamSeq;
  }

  rewind(streamSequence: number): void {
    if (streamSequence >= this.#streamSeq) return;
    this.#streamSeq = streamSequence;
    this.reset();
  }

  reset(): void {
    const old = this.#current;
    this.#current = undefined;
    // best effort: an unused consumer also goes away after its inactive_threshold
    old?.delete().catch(() => undefined);
  }

  /** The consumer in use, created after the last sequence seen when there is none. */
  protected async current(): Promise<C> {
    if (this.#current) return this.#current;
    this.#serial++;
    this.#deliverySeq = 0;
    const info = await this.consumers.add(this.stream, this.flavour(this.#config()));
    this.#current = this.wrap(info);
    this.#last = this.#current;
    return this.#current;
  }

  consumerName(): string {
    return `${this.#namePrefix}_${this.#serial}`;
  }

  #config(): ConsumerConfig {
    const o = this.#options;
    const config: ConsumerConfig = {
      name: this.consumerName(),
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
      if (!o.opt_start_seq) {
        throw new JetStreamError('deliver_policy by_start_sequence needs opt_start_seq');
      }
      config.opt_start_seq = o.opt_start_seq;
    } else if (config.deliver_policy === 'by_start_time') {
      if (!o.opt_start_time) {
        throw new JetStreamError('deliver_policy by_start_time needs opt_start_time');
      }
      config.opt_start_time = o.opt_start_time;
    }
    return config;
  }
}
