import { InvalidArgumentError, InvalidOperationError } from '@slipstream/client';
import type { ConsumerConfig, ConsumerInfo } from '@slipstream/jsapi';
import { millis } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import type { ConsumerMessages } from './consumption.js';
import { Delivery } from './delivery.js';
import { JetStreamError, missingResource } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import { PushConsumerMessages } from './push-consumer-messages.js';

/** Called with each message of a push consumer consumed by callback. */
export type ConsumerCallbackFn = (msg: JsMsg) => void;

/** How a push consumer is consumed; the options of nats.js. */
export interface PushConsumerOptions {
  /** Hand each message to this function instead of an iterator. */
  callback?: ConsumerCallbackFn;
  /**
   * End the messages with ConsumerNotFoundError or StreamNotFoundError when, after two missed
   * idle heartbeats, the consumer or its stream is found gone. Default: keep waiting for them
   * to come back.
   */
  abort_on_missing_resource?: boolean;
}

/**
 * A push consumer known by its delivery alone (nats.js v3's BoundPushConsumerOptions): the
 * values must be those of the consumer's config.
 */
export interface BoundPushConsumerOptions {
  deliver_subject: string;
  deliver_group?: string;
  /** Nanoseconds, as in the config: the client expects a heartbeat this often. */
  idle_heartbeat?: number;
  /** The default callback of `consume()`. */
  callback?: ConsumerCallbackFn;
}

/** A push consumer, shaped like nats.js's PushConsumer. */
export interface PushConsumer {
  info(cached?: boolean): Promise<ConsumerInfo>;
  delete(): Promise<boolean>;
  /** The messages the server pushes to the consumer's deliver subject, until `close()`. */
  consume(options?: PushConsumerOptions): Promise<ConsumerMessages>;
  isPullConsumer(): boolean;
  isPushConsumer(): boolean;
}

/** What consuming needs of a push consumer's config. */
type DeliveryConfig = Pick<ConsumerConfig, 'deliver_subject' | 'deliver_group' | 'idle_heartbeat'>;

/**
 * A push consumer: consuming subscribes to its deliver subject (in its deliver group), answers
 * flow control and watches its idle heartbeats. One consume at a time, as the deliver subject
 * is the consumer's one way out. Made from the consumer's info, or bound to a delivery alone
 * (`bound`), which knows no stream or name: info and delete are refused, as in nats.js v3.
 */
export class PushConsumerImpl implements PushConsumer {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;
  #info: ConsumerInfo | undefined;
  readonly #bound: BoundPushConsumerOptions | undefined;
  #consuming: ConsumerMessages | undefined;

  constructor(
    api: ApiClient,
    consumers: ConsumerAPI,
    from: { info: ConsumerInfo } | { bound: BoundPushConsumerOptions },
  ) {
    this.#api = api;
    this.#consumers = consumers;
    if ('bound' in from) {
      if (!from.bound.deliver_subject) {
        throw new InvalidArgumentError('a bound push consumer needs its deliver_subject');
      }
      this.#bound = from.bound;
    } else {
      const { info } = from;
      if (!info.config.deliver_subject) {
        throw new JetStreamError(`consumer '${info.name}' is a pull consumer: nothing is pushed`);
      }
      this.#info = info;
    }
  }

  async info(cached = false): Promise<ConsumerInfo> {
    const info = this.#known('info');
    if (!cached) this.#info = await this.#consumers.info(info.stream_name, info.name);
    return this.#info!;
  }

  async delete(): Promise<boolean> {
    const { stream_name, name } = this.#known('delete');
    return this.#consumers.delete(stream_name, name);
  }

  #known(what: string): ConsumerInfo {
    if (!this.#info) throw new InvalidOperationError(`a bound push consumer cannot ${what}`);
    return this.#info;
  }

  isPullConsumer(): boolean {
    return false;
  }

  isPushConsumer(): boolean {
    return true;
  }

  async consume(options: PushConsumerOptions = {}): Promise<ConsumerMessages> {
    const callback = options.callback ?? this.#bound?.callback;
    return this.startConsume(options, new Delivery({ callback }));
  }

  /** consume(), handing the messages to `delivery` (an ordered consumer's, or a callback). */
  startConsume(options: PushConsumerOptions, delivery: Delivery): PushConsumerMessages {
    if (this.#consuming) throw new JetStreamError('the push consumer is already being consumed');
    const config: DeliveryConfig = this.#bound ?? this.#info!.config;
    const abort = (options.abort_on_missing_resource ?? false) && !this.#bound;
    const messages = new PushConsumerMessages(
      this.#api.nc,
      {
        deliverSubject: config.deliver_subject!,
        queue: config.deliver_group,
        idleHeartbeat: config.idle_heartbeat ? millis(config.idle_heartbeat) : 0,
        ackTimeout: this.#api.options.timeout,
        // a bound consumer cannot ask whether its consumer is there
        heartbeatsMissed: async () => (abort ? missingResource(() => this.info()) : undefined),
      },
      delivery,
    );
    this.#consuming = messages;
    void messages.closed().then(() => {
      this.#consuming = undefined;
    });
    return messages;
  }
}
