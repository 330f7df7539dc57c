import { InvalidArgumentError } from '@slipstream/client';
import type {
  ConsumerAction,
  ConsumerConfig,
  ConsumerCreateRequest,
  ConsumerInfo,
} from '@slipstream/jsapi';
import { isValidPublishSubject } from '@slipstream/protocol';
import type { ApiClient } from './api-client.js';
import { requireConsumerFeatures, requireFeature } from './features.js';
import { type Lister, PagedLister } from './lister.js';
import { checkConsumerName, checkStreamName } from './names.js';

export interface ConsumerCreateOptions {
  /**
   * `create` (the default of `add`) fails when the consumer exists with another config,
   * `update` when it does not exist, `''` creates or updates. nats-server 2.9 ignores it.
   */
  action?: ConsumerAction;
  /** Ask the server to refuse the config instead of adjusting it (newer servers). */
  pedantic?: boolean;
}

/** Consumer management, with the method names of nats.js's `jsm.consumers`. */
export interface ConsumerAPI {
  info(stream: string, consumer: string): Promise<ConsumerInfo>;
  /** Creates a consumer: durable when `durable_name` is set, named by `name`, else ephemeral. */
  add(
    stream: string,
    config: ConsumerConfig,
    options?: ConsumerCreateOptions,
  ): Promise<ConsumerInfo>;
  /** Changes the given fields of an existing consumer; the rest of its config is kept. */
  update(stream: string, consumer: string, config: Partial<ConsumerConfig>): Promise<ConsumerInfo>;
  delete(stream: string, consumer: string): Promise<boolean>;
  list(stream: string): Lister<ConsumerInfo>;
  /**
   * Stops deliveries until `until` (nats-server 2.11 `CONSUMER.PAUSE`); the answer says whether
   * the consumer is paused (a time in the past is not a pause) and until when.
   */
  pause(stream: string, name: string, until?: Date): Promise<ConsumerPauseResult>;
  /** Ends a pause now (a pause with no time). */
  resume(stream: string, name: string): Promise<ConsumerPauseResult>;
  /**
   * Starts the consumer over (nats-server 2.14 `CONSUMER.RESET`): from its ack floor, or from
   * stream sequence `seq` when given (0 also means the ack floor); the answer is its info and
   * the sequence it was reset to.
   */
  reset(stream: string, name: string, seq?: number): Promise<ConsumerResetResponse>;
}

/** CONSUMER.RESET's answer: the consumer's info after the reset and the sequence it restarts at. */
export type ConsumerResetResponse = ConsumerInfo & { reset_seq: number };

/** CONSUMER.PAUSE's answer: `pause_remaining` in nanoseconds while paused. */
export interface ConsumerPauseResult {
  paused: boolean;
  pause_until: string;
  pause_remaining?: number;
}

export class ConsumerAPIImpl implements ConsumerAPI {
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  async info(stream: string, consumer: string): Promise<ConsumerInfo> {
    return this.#api.call('consumerInfo', {
      stream: checkStreamName(stream),
      consumer: checkConsumerName(consumer),
    });
  }

  async add(
    stream: string,
    config: ConsumerConfig,
    options: ConsumerCreateOptions = {},
  ): Promise<ConsumerInfo> {
    return this.#create(stream, config, { action: 'create', ...options });
  }

  async update(
    stream: string,
    consumer: string,
    config: Partial<ConsumerConfig>,
  ): Promise<ConsumerInfo> {
    // only the fields changed: what the server already has it evidently knows
    requireConsumerFeatures(this.#api.nc, config);
    const current = await this.info(stream, consumer);
    return this.#create(stream, { ...current.config, ...config }, { action: 'update' });
  }

  async delete(stream: string, consumer: string): Promise<boolean> {
    const reply = await this.#api.call('consumerDelete', {
      stream: checkStreamName(stream),
      consumer: checkConsumerName(consumer),
    });
    return reply.success;
  }

  async pause(stream: string, name: string, until?: Date): Promise<ConsumerPauseResult> {
    // without a time the server would take the request for a resume
    if (!until) throw new InvalidArgumentError('pause: until is required');
    return this.#pause(stream, name, until.toISOString());
  }

  async resume(stream: string, name: string): Promise<ConsumerPauseResult> {
    return this.#pause(stream, name, undefined);
  }

  async #pause(stream: string, name: string, until: string | undefined) {
    requireFeature(this.#api.nc, 'JS_CONSUMER_PAUSE', 'consumer pause');
    const { paused, pause_until, pause_remaining } = await this.#api.call(
      'consumerPause',
      { stream: checkStreamName(stream), consumer: checkConsumerName(name) },
      until ? { pause_until: until } : {},
    );
    const result: ConsumerPauseResult = { paused, pause_until };
    if (pause_remaining !== undefined) result.pause_remaining = pause_remaining;
    return result;
  }

  async reset(stream: string, name: string, seq?: number): Promise<ConsumerResetResponse> {
    checkStreamName(stream);
    checkConsumerName(name);
    requireFeature(this.#api.nc, 'JS_CONSUMER_RESET', 'consumer reset');
    if (seq !== undefined && (!Number.isInteger(seq) || seq < 0)) {
      throw new InvalidArgumentError("'seq' must be a non-negative integer");
    }
    const { type: _type, ...reply } = await this.#api.call(
      'consumerReset',
      { stream, consumer: name },
      seq === undefined ? undefined : { seq },
    );
    return reply;
  }

  list(stream: string): Lister<ConsumerInfo> {
    return new PagedLister(async (offset) => {
      checkStreamName(stream);
      const page = await this.#api.call('consumerList', { stream }, { offset });
      return { total: page.total, items: page.consumers ?? [] };
    });
  }

  /**
   * Named consumers use `CONSUMER.CREATE.<stream>.<name>[.<filter>]` (nats-server 2.9+); the
   * filter goes into the subject, where permissions can see it, when it is a literal subject
   * (a wildcard cannot be published to). Unnamed ones use the ephemeral form.
   */
  async #create(
    stream: string,
    config: ConsumerConfig,
    options: ConsumerCreateOptions,
  ): Promise<ConsumerInfo> {
    checkStreamName(stream);
    if (options.action !== 'update') requireConsumerFeatures(this.#api.nc, config);
    const request: ConsumerCreateRequest = { stream_name: stream, config };
    if (options.action) request.action = options.action;
    if (options.pedantic) request.pedantic = true;
    const name = config.name || config.durable_name;
    if (!name) return this.#api.call('consumerCreateEphemeral', { stream }, request);
    checkConsumerName(name);
    const filter = config.filter_subject;
    if (filter && isValidPublishSubject(filter)) {
      return this.#api.call('consumerCreateFiltered', { stream, consumer: name, filter }, request);
    }
    return this.#api.call('consumerCreate', { stream, consumer: name }, request);
  }
}
