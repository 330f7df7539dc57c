/**
 * `js.consumers`: the way to consumers that exist (pull and push) and to ordered ones, kept
 * apart from the consumer kinds so none of them imports another's entry point.
 */
import type { ConsumerInfo } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import { JetStreamError } from './errors.js';
import { OrderedConsumerImpl } from './ordered-consumer.js';
import type { OrderedConsumerOptions } from './ordered-consumer-cursor.js';
import {
  OrderedPushConsumerImpl,
  type OrderedPushConsumerOptions,
} from './ordered-consumer-push.js';
import { type Consumer, PullConsumerImpl } from './pull-consumer.js';
import {
  type BoundPushConsumerOptions,
  type PushConsumer,
  PushConsumerImpl,
} from './push-consumer.js';

/** Access to existing consumers, as nats.js's `js.consumers`. */
export interface Consumers {
  /**
   * A pull consumer that exists on the server (its info is read first); without a name, or
   * with ordered consumer options, an ordered consumer of the stream.
   */
  get(stream: string, name?: string | Partial<OrderedConsumerOptions>): Promise<Consumer>;
  /** A push consumer that exists; without a name, an ordered push consumer of the stream. */
  getPushConsumer(
    stream: string,
    name?: string | Partial<OrderedPushConsumerOptions>,
  ): Promise<PushConsumer>;
  /**
   * A push consumer known by its deliver subject (and group, heartbeat) alone, with no request
   * to the server: for users allowed to subscribe but not to read consumer infos. Its `info()`
   * and `delete()` are refused (InvalidOperationError).
   */
  getBoundPushConsumer(options: BoundPushConsumerOptions): Promise<PushConsumer>;
  /** The pull consumer of an info already at hand, with no request to the server. */
  getConsumerFromInfo(info: ConsumerInfo): Consumer;
}

export class ConsumersImpl implements Consumers {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;

  constructor(api: ApiClient, consumers: ConsumerAPI) {
    this.#api = api;
    this.#consumers = consumers;
  }

  async get(stream: string, name?: string | Partial<OrderedConsumerOptions>): Promise<Consumer> {
    if (typeof name !== 'string') {
      return new OrderedConsumerImpl(this.#api, this.#consumers, stream, name);
    }
    return this.getConsumerFromInfo(await this.#consumers.info(stream, name));
  }

  getConsumerFromInfo(info: ConsumerInfo): Consumer {
    if (info.config.deliver_subject) {
      throw new JetStreamError(`consumer '${info.name}' is a push consumer: it cannot be pulled`);
    }
    return new PullConsumerImpl(this.#api, this.#consumers, info);
  }

  async getBoundPushConsumer(options: BoundPushConsumerOptions): Promise<PushConsumer> {
    return new PushConsumerImpl(this.#api, this.#consumers, { bound: options });
  }

  async getPushConsumer(
    stream: string,
    name?: string | Partial<OrderedPushConsumerOptions>,
  ): Promise<PushConsumer> {
    if (typeof name !== 'string') {
      return new OrderedPushConsumerImpl(this.#api, this.#consumers, stream, name);
    }
    const info = await this.#consumers.info(stream, name);
    return new PushConsumerImpl(this.#api, this.#consumers, { info });
  }
}
