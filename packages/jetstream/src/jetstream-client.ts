import type { NatsConnection, Payload } from '@slipstream/client';
import { ApiClient } from './api-client.js';
import { type Batch, BatchPublisher } from './batch-publish.js';
import { ConsumerAPIImpl } from './consumer-api.js';
import { type Consumers, ConsumersImpl } from './consumers.js';
import type { JetStreamClient, JetStreamManager } from './jetstream-types.js';
import { type JetStreamOptions, resolveOptions } from './options.js';
import { decodePubAck, type PubAck } from './pub-ack.js';
import {
  AsyncPublisher,
  DEFAULT_PUBLISH_ASYNC_MAX_PENDING,
  type PubAckFuture,
  type PublishAsyncFailure,
  type PublishAsyncOptions,
} from './publish-async.js';
import { type JetStreamPublishOptions, publishHeaders } from './publish-headers.js';
import { retryingRequest } from './request.js';

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

  async startBatch(
    subject: string,
    payload: Payload = '',
    options: Partial<JetStreamPublishOptions> = {},
  ): Promise<Batch> {
    const batch = new BatchPublisher(this.#api.nc, this.#api.options.timeout);
    await batch.start(subject, payload, options);
    return batch;
  }

  getOptions(): JetStreamOptions {
    return { ...this.#options };
  }

  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager> {
    return this.#openManager(checkAPI);
  }
}
