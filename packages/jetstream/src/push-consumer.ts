import type { ConsumerInfo } from '@slipstream/jsapi';
import { millis } from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import type { ConsumerAPI } from './consumer-api.js';
import { ConsumerNotFoundError, JetStreamError, StreamNotFoundError } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import type { ConsumerMessages } from './pull-batch.js';
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

/** A push consumer, shaped like nats.js's PushConsumer. */
export interface PushConsumer {
  info(cached?: boolean): Promise<ConsumerInfo>;
  delete(): Promise<boolean>;
  /** The messages the server pushes to the consumer's deliver subject, until `close()`. */
  consume(options?: PushConsumerOptions): Promise<ConsumerMessages>;
  isPullConsumer(): boolean;
  isPushConsumer(): boolean;
}

/**
 * A push consumer that exists on the server: consuming subscribes to its deliver subject (in
 * its deliver group), answers flow control and watches its idle heartbeats. One consume at a
 * time, as the deliver subject is the consumer's one way out.
 */
export class PushConsumerImpl implements PushConsumer {
  readonly #api: ApiClient;
  readonly #consumers: ConsumerAPI;
  #info: ConsumerInfo;
  #consuming: ConsumerMessages | undefined;

  constructor(api: ApiClient, consumers: ConsumerAPI, info: ConsumerInfo) {
    if (!info.config.deliver_subject) {
      throw new JetStreamError(`consumer '${info.name}' is a pull consumer: nothing is pushed`);
    }
    this.#api = api;
    this.#consumers = consumers;
    this.#info = info;
  }

  async info(cached = false): Promise<ConsumerInfo> {
    if (!cached) this.#info = await this.#consumers.info(this.#info.stream_name, this.#info.name);
    return this.#info;
  }

  delete(): Promise<boolean> {
    return this.#consumers.delete(this.#info.stream_name, this.#info.name);
  }

  isPullConsumer(): boolean {
    return false;
  }

  isPushConsumer(): boolean {
    return true;
  }

  async consume(options: PushConsumerOptions = {}): Promise<ConsumerMessages> {
    if (this.#consuming) throw new JetStreamError('the push consumer is already being consumed');
    const { config } = this.#info;
    const messages = new PushConsumerMessages(this.#api.nc, {
      deliverSubject: config.deliver_subject!,
      queue: config.deliver_group,
      idleHeartbeat: config.idle_heartbeat ? millis(config.idle_heartbeat) : 0,
      ackTimeout: this.#api.options.timeout,
      heartbeatsMissed: () => this.#missingResource(options.abort_on_missing_resource ?? false),
      callback: options.callback,
    });
    this.#consuming = messages;
    void messages.closed().then(() => {
      this.#consuming = undefined;
    });
    return messages;
  }

  /** What missed heartbeats mean: the consumer or stream gone, when the caller wants to know. */
  async #missingResource(abort: boolean): Promise<Error | undefined> {
    if (!abort) return undefined;
    try {
      await this.info();
      return undefined;
    } catch (error) {
      if (error instanceof ConsumerNotFoundError || error instanceof StreamNotFoundError) {
        return error;
      }
      return undefined;
    }
  }
}
