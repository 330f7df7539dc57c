import type { NatsConnection } from '@slipstream/client';
import { type Advisory, advisories } from './advisories.js';
import { ApiClient } from './api-client.js';
import { type ConsumerAPI, ConsumerAPIImpl } from './consumer-api.js';
import { type DirectStreamAPI, DirectStreamAPIImpl } from './direct-api.js';
import type {
  JetStreamAccountStats,
  JetStreamClient,
  JetStreamManager,
} from './jetstream-types.js';
import { type JetStreamOptions, resolveOptions } from './options.js';
import { type StreamAPI, StreamAPIImpl } from './stream-api.js';

export class JetStreamManagerImpl implements JetStreamManager {
  readonly streams: StreamAPI;
  readonly consumers: ConsumerAPI;
  readonly direct: DirectStreamAPI;
  readonly #api: ApiClient;
  readonly #options: JetStreamOptions;
  readonly #openClient: () => JetStreamClient;

  constructor(nc: NatsConnection, options: JetStreamOptions, openClient: () => JetStreamClient) {
    this.#options = { ...options };
    this.#openClient = openClient;
    this.#api = new ApiClient(nc, resolveOptions(options));
    this.streams = new StreamAPIImpl(this.#api);
    this.consumers = new ConsumerAPIImpl(this.#api);
    this.direct = new DirectStreamAPIImpl(this.#api);
  }

  getAccountInfo(): Promise<JetStreamAccountStats> {
    return this.#api.call('accountInfo', {});
  }

  advisories(): AsyncIterable<Advisory> {
    return advisories(this.#api.nc);
  }

  getOptions(): JetStreamOptions {
    return { ...this.#options };
  }

  jetstream(): JetStreamClient {
    return this.#openClient();
  }
}
