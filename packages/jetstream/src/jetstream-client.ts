import type { NatsConnection, Payload } from '@slipstream/client';
import { ApiClient } from './api-client.js';
import { ConsumerAPIImpl } from './consumer-api.js';
import { type Consumers, ConsumersImpl } from './consumers.js';
import type { JetStreamManager } from './manager.js';
import { type JetStreamOptions, resolveOptions } from './options.js';
import { decodePubAck, type PubAck } from './pub-ack.js';
import {
  AsyncPublisher,
  DEFAULT_PUBLISH_ASYNC_MAX_PENDING,
  type PubAckFuture,
  type PublishAsyncFailure,
  type PublishAsyncOptions,
} from './publish-async.js';
import { type PublishHeaderOptions, publishHeaders } from './publish-headers.js';
import { retryingRequest } from './request.js';

export type { PubAck };

export interface JetStreamPublishOptions extends PublishHeaderOptions {
  /** Milliseconds to wait for the PubAck (default: the client's timeout). */
  timeout: number;
  /**
   * Attempts in all while nothing answers (no responders: a stream being created or
   * recovering); default 1. A timeout is never retried.
   */
  retries: number;
}

/** The JetStream client, shaped like nats.js's JetStreamClient. */
export interface JetStreamClient {
  /** Publishes into a stream and resolves with the stream's PubAck. */
  publish(
    subject: string,
    payload?: Payload,
    options?: Partial<JetStreamPublishOptions>,
  ): Promise<PubAck>;
  /**
   * Sends without waiting for the PubAck and resolves with its future once the message is
   * sent; with `publishAsyncMaxPending` acks outstanding it first waits for one to come back.
   */
  publishAsync(
    subject: string,
    payload?: Payload,
    options?: Partial<PublishAsyncOptions>,
  ): Promise<PubAckFuture>;
  /** How many `publishAsync` acks are outstanding. */
  publishAsyncPending(): number;
  /**
   * Resolves once every `publishAsync` so far has its PubAck or its failure, with the failures
   * since the previous call.
   */
  publishAsyncComplete(): Promise<PublishAsyncFailure[]>;
  /** The consumers of the account's streams, to read from. */
  readonly consumers: Consumers;
  getOptions(): JetStreamOptions;
  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager>;
}

export class JetStreamClientImpl implements JetStreamClient {
  readonly consumers: Consumers;
  readonly #api: ApiClient;
  readonly #options: JetStreamOptions;
  readonly #openManager: (checkAPI?: boolean) => Promise<JetStreamManager>;
  readonly #asyncPublisher: AsyncPublisher;

  constructor(
    nc: NatsConnection,
    options: JetStreamOptions,
    openManager: (checkAPI?: boolean) => Promise<JetStreamManager>,
  ) {
    this.#options = { ...options };
    this.#openManager = openManager;
    this.#api = new ApiClient(nc, resolveOptions(options));
    this.consumers = new ConsumersImpl(this.#api, new ConsumerAPIImpl(this.#api));
    this.#asyncPublisher = new AsyncPublisher(
      nc,
      options.publishAsyncMaxPending ?? DEFAULT_PUBLISH_ASYNC_MAX_PENDING,
      this.#api.options.timeout,
    );
  }

  async publish(
    subject: string,
    payload: Payload = '',
    options: Partial<JetStreamPublishOptions> = {},
  ): Promise<PubAck> {
    const reply = await retryingRequest(this.#api.nc, subject, payload, {
      timeout: options.timeout ?? this.#api.options.timeout,
      headers: publishHeaders(this.#api.nc, options),
      retries: options.retries,
    });
    return decodePubAck(reply.data);
  }

  publishAsync(
    subject: string,
    payload: Payload = '',
    options: Partial<PublishAsyncOptions> = {},
  ): Promise<PubAckFuture> {
    return this.#asyncPublisher.publish(subject, payload, options);
  }

  publishAsyncPending(): number {
    return this.#asyncPublisher.pending;
  }

  publishAsyncComplete(): Promise<PublishAsyncFailure[]> {
    return this.#asyncPublisher.complete();
  }

  getOptions(): JetStreamOptions {
    return { ...this.#options };
  }

  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager> {
    return this.#openManager(checkAPI);
  }
}
