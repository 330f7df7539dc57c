import { createInbox } from '@slipstream/client';
import type { ConsumerConfig, ConsumerInfo } from '@slipstream/jsapi';
import { nanos } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import type { ConsumerMessages } from './consumption.js';
import { Delivery } from './delivery.js';
import { OrderedConsumerCursor, type OrderedConsumerOptions } from './ordered-consumer-cursor.js';
import { OrderedConsumerMessages } from './ordered-consumer-messages.js';
import { type PushConsumer, PushConsumerImpl, type PushConsumerOptions } from './push-consumer.js';

export interface OrderedPushConsumerOptions extends OrderedConsumerOptions {
  /** Prefix of the deliver subjects (default `_INBOX`). */
  deliver_prefix: string;
  /** Milliseconds between the server's idle heartbeats (default 5000); not in nats.js. */
  idle_heartbeat: number;
}

const DEFAULT_IDLE_HEARTBEAT_MS = 5000;

/**
 * An ordered push consumer, as nats.js v3 gives for `js.consumers.getPushConsumer(stream)`:
 * ephemeral push consumers on a fresh inbox each, with flow control and idle heartbeats,
 * replaced on a gap, or when two heartbeats are missed and the consumer is found gone.
 */
export class OrderedPushConsumerImpl
  extends OrderedConsumerCursor<PushConsumerImpl>
  implements PushConsumer
{
  readonly #api: ApiClient;
  readonly #deliverPrefix: string | undefined;
  readonly #heartbeat: number;

  constructor(
    api: ApiClient,
    consumers: ConsumerAPI,
    stream: string,
    options: Partial<OrderedPushConsumerOptions> = {},
  ) {
    super(consumers, stream, options);
    this.#api = api;
    this.#deliverPrefix = options.deliver_prefix;
    this.#heartbeat = options.idle_heartbeat ?? DEFAULT_IDLE_HEARTBEAT_MS;
  }

  protected flavour(config: ConsumerConfig): ConsumerConfig {
    return {
      ...config,
      deliver_subject: createInbox(this.#deliverPrefix),
      flow_control: true,
      idle_heartbeat: nanos(this.#heartbeat),
    };
  }

  protected wrap(info: ConsumerInfo): PushConsumerImpl {
    return new PushConsumerImpl(this.#api, this.consumers, { info });
  }

  isPullConsumer(): boolean {
    return false;
  }

  isPushConsumer(): boolean {
    return true;
  }

  async consume(options: PushConsumerOptions = {}): Promise<ConsumerMessages> {
    const messages = new OrderedConsumerMessages(
      this,
      async (delivery) => (await this.current()).startConsume({}, delivery),
      { idleCheck: 2 * this.#heartbeat },
      new Delivery({ callback: options.callback }),
    );
    return messages.start();
  }
}
