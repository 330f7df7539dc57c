/**
 * The two faces of JetStream a connection opens, as nats.js names them: JetStreamClient (publish,
 * consume) and JetStreamManager (streams, consumers, account). Each opens the other, so both are
 * declared here; jetstream-client.ts and manager.ts implement them.
 */
import type { Payload } from '@slipstream/client';
import type { Advisory } from './advisories.js';
import type { ApiSuccess } from './api-client.js';
import type { Batch } from './batch-publish.js';
import type { ConsumerAPI } from './consumer-api.js';
import type { Consumers } from './consumers.js';
import type { DirectStreamAPI } from './direct-api.js';
import type { JetStreamOptions } from './options.js';
import type { PubAck } from './pub-ack.js';
import type { PubAckFuture, PublishAsyncFailure, PublishAsyncOptions } from './publish-async.js';
import type { JetStreamPublishOptions } from './publish-headers.js';
import type { StreamAPI } from './stream-api.js';

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
  /**
   * Starts an atomic batch (nats-server 2.12, a stream with `allow_atomic`) with its first
   * message, resolving once the server staged it; the batch is stored whole at its commit.
   */
  startBatch(
    subject: string,
    payload?: Payload,
    options?: Partial<JetStreamPublishOptions>,
  ): Promise<Batch>;
  /** The consumers of the account's streams, to read from. */
  readonly consumers: Consumers;
  getOptions(): JetStreamOptions;
  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager>;
}

/** The account's JetStream usage, limits and API counters (`$JS.API.INFO`). */
export type JetStreamAccountStats = ApiSuccess<'accountInfo'>;

/** JetStream management, shaped like nats.js's JetStreamManager. */
export interface JetStreamManager {
  readonly streams: StreamAPI;
  readonly consumers: ConsumerAPI;
  /** Direct gets, for streams with `allow_direct`. */
  readonly direct: DirectStreamAPI;
  getAccountInfo(): Promise<JetStreamAccountStats>;
  /** The account's JetStream advisories from now on, until the loop is left. */
  advisories(): AsyncIterable<Advisory>;
  getOptions(): JetStreamOptions;
  /** A JetStream client with the same options. */
  jetstream(): JetStreamClient;
}
