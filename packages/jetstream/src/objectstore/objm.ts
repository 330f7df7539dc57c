import type { NatsConnection } from '@slipstream/client';
import {
  OBJ_STREAM_PREFIX,
  objectStoreStreamConfig,
  objStreamName,
  type StreamInfo,
} from '@slipstream/jsapi';
import { asJetStreamClient, bucketLister, checkBucket } from '../buckets.js';
import { JetStreamError, StreamNotFoundError } from '../errors.js';
import type { JetStreamClient, JetStreamManager } from '../jetstream-types.js';
import type { Lister } from '../lister.js';
import { resolveOptions } from '../options.js';
import { type ObjectStore, ObjectStoreImpl, objectStoreStatus } from './object-store.js';
import { ServerObjectApi } from './server-object-api.js';
import type { ObjectStoreOptions, ObjectStoreStatus, ObjmOptions } from './types.js';

/**
 * The entry point to object stores, as @nats-io/obj's Objm: `new Objm(js)` (or a connection,
 * for a JetStream client with default options). `options.serverApi` opens the stores on our
 * server's `$OBJ` API (see ObjmOptions).
 */
export class Objm {
  readonly #js: JetStreamClient;
  /** The core connection of the `$OBJ` requests, with `serverApi`. */
  readonly #serverApiConnection: NatsConnection | undefined;
  #jsm: Promise<JetStreamManager> | undefined;

  constructor(js: JetStreamClient | NatsConnection, options: ObjmOptions = {}) {
    this.#js = asJetStreamClient(js);
    if (options.serverApi) {
      const connection =
        options.connection ?? (js === this.#js ? undefined : (js as NatsConnection));
      if (!connection) {
        throw new JetStreamError(
          'serverApi needs the connection: new Objm(nc, { serverApi: true }), or give options.connection',
        );
      }
      this.#serverApiConnection = connection;
    }
  }

  /**
   * Opens the bucket, creating it with `options` when it does not exist (ttl in nanoseconds, as
   * in @nats-io/obj). compression and metadata need nats-server 2.10 and are only sent when set.
   */
  async create(name: string, options: Partial<ObjectStoreOptions> = {}): Promise<ObjectStore> {
    const jsm = await this.#manager();
    try {
      return this.#open(jsm, name, await jsm.streams.info(objStreamName(checkBucket(name))));
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    const config = objectStoreStreamConfig({
      bucket: name,
      description: options.description,
      ttl: options.ttl,
      maxBytes: options.max_bytes,
      storage: options.storage,
      replicas: options.replicas,
      compression: options.compression,
      metadata: options.metadata,
    });
    return this.#open(jsm, name, await jsm.streams.add(config));
  }

  /** Opens a bucket; with `check` (the default) it must exist (StreamNotFoundError). */
  async open(name: string, check = true): Promise<ObjectStore> {
    const jsm = await this.#manager();
    if (!check) return this.#store(jsm, checkBucket(name), false);
    return this.#open(jsm, name, await jsm.streams.info(objStreamName(checkBucket(name))));
  }

  /** The object stores of the account, with their status. */
  list(): Lister<ObjectStoreStatus> {
    return bucketLister(() => this.#manager(), OBJ_STREAM_PREFIX, objectStoreStatus);
  }

  #open(jsm: JetStreamManager, name: string, info: StreamInfo): ObjectStore {
    return this.#store(jsm, name, info.config.allow_direct ?? false);
  }

  #store(jsm: JetStreamManager, bucket: string, direct: boolean): ObjectStore {
    const timeout = resolveOptions(this.#js.getOptions()).timeout;
    const serverApi =
      this.#serverApiConnection && new ServerObjectApi(this.#serverApiConnection, bucket, timeout);
    return new ObjectStoreImpl(this.#js, jsm, bucket, direct, serverApi);
  }

  #manager(): Promise<JetStreamManager> {
    this.#jsm ??= this.#js.jetstreamManager(false);
    return this.#jsm;
  }
}
