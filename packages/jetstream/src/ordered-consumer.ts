import { InvalidArgumentError } from '@slipstream/client';
import type { ConsumerConfig, ConsumerInfo } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import type { ConsumerMessages } from './consumption.js';
import { Delivery } from './delivery.js';
import type { JsMsg } from './jsmsg.js';
import { OrderedConsumerCursor, type OrderedConsumerOptions } from './ordered-consumer-cursor.js';
import { OrderedConsumerMessages } from './ordered-consumer-messages.js';
import {
  type ConsumeOptions,
  type Consumer,
  type FetchOptions,
  type NextOptions,
  PullConsumerImpl,
} from './pull-consumer.js';

/** consume()'s default, as in pull-consumer.ts. */
const DEFAULT_EXPIRES_MS = 30_000;

/**
 * An ordered pull consumer, as nats.js v3 gives for `js.consumers.get(stream)`: it reads
 * through ephemeral pull consumers and replaces them on a gap, a deletion or a restart (see
 * OrderedConsumerCursor). Messages need no ack. `fetch`/`next` and `consume` must not run at the
 * same time.
 */
export class OrderedConsumerImpl
  extends OrderedConsumerCursor<PullConsumerImpl>
  implements Consumer
{
  readonly #api: ApiClient;

  constructor(
    api: ApiClient,
    consumers: ConsumerAPI,
    stream: string,
    options: Partial<OrderedConsumerOptions> = {},
  ) {
    super(consumers, stream, options);
    this.#api = api;
  }

  protected flavour(config: ConsumerConfig): ConsumerConfig {
    return config;
  }

  protected wrap(info: ConsumerInfo): PullConsumerImpl {
    return new PullConsumerImpl(this.#api, this.consumers, info);
  }

  isPullConsumer(): boolean {
    return true;
  }

  isPushConsumer(): boolean {
    return false;
  }

  async next(options: NextOptions = {}): Promise<JsMsg | null> {
    refuseBind(options);
    const batch = await this.fetch({ expires: options.expires, max_messages: 1 });
    for await (const msg of batch) return msg;
    return null;
  }

  async fetch(options: FetchOptions = {}): Promise<ConsumerMessages> {
    refuseBind(options);
    const { callback, ...pull } = options;
    const messages = new OrderedConsumerMessages(
      this,
      async (delivery) => (await this.current()).startFetch(pull, delivery),
      undefined,
      new Delivery({ callback }),
    );
    return messages.start();
  }

  /**
   * Messages until `close()`. The consumer is checked for after two idle heartbeats without a
   * message (default: expires), and replaced when the server lost it.
   */
  async consume(options: ConsumeOptions = {}): Promise<ConsumerMessages> {
    refuseBind(options);
    const { callback, ...pull } = options;
    const heartbeat = options.idle_heartbeat ?? (options.expires ?? DEFAULT_EXPIRES_MS) / 2;
    const messages = new OrderedConsumerMessages(
      this,
      async (delivery) => (await this.current()).startConsume(pull, delivery),
      { idleCheck: 2 * heartbeat },
      new Delivery({ callback }),
    );
    return messages.start();
  }
}

/** An ordered consumer is its own: it cannot be bound to one (as nats.js refuses). */
function refuseBind(options: { bind?: boolean }): void {
  if (options.bind) throw new InvalidArgumentError("'bind' is not supported by ordered consumers");
}
