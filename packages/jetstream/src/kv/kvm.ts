import type { NatsConnection } from '@slipstream/client';
import {
  bucketNameProblem,
  KV_STREAM_PREFIX,
  kvStreamConfig,
  kvStreamName,
  nanos,
  type StreamInfo,
} from '@slipstream/jsapi';
import { jetstream } from '../entry-points.js';
import { InvalidNameError, StreamNotFoundError } from '../errors.js';
import type { JetStreamClient } from '../jetstream-client.js';
import type { Lister } from '../lister.js';
import type { JetStreamManager } from '../manager.js';
import { Bucket, type KV, kvStatus } from './bucket.js';
import type { KvOptions, KvStatus } from './types.js';

function checkBucket(name: string): string {
  const problem = bucketNameProblem(name);
  if (problem) throw new InvalidNameError(problem);
  return name;
}

const isJetStreamClient = (v: JetStreamClient | NatsConnection): v is JetStreamClient =>
  'consumers' in v && 'jetstreamManager' in v;

/**
 * The entry point to key-value buckets, as @nats-io/kv's Kvm: `new Kvm(js)` (or a connection,
 * for a JetStream client with default options).
 */
export class Kvm {
  readonly #js: JetStreamClient;
  #jsm: Promise<JetStreamManager> | undefined;

  constructor(js: JetStreamClient | NatsConnection) {
    this.#js = isJetStreamClient(js) ? js : jetstream(js);
  }

  /**
   * Opens the bucket, creating it with `options` when it does not exist (an existing bucket is
   * opened as it is). Times are milliseconds. compression and metadata need nats-server 2.10
   * and are only sent when set.
   */
  async create(name: string, options: Partial<KvOptions> = {}): Promise<KV> {
    const jsm = await this.#manager();
    const stream = kvStreamName(checkBucket(name));
    try {
      return new Bucket(this.#js, jsm, await jsm.streams.info(stream), name);
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    const config = kvStreamConfig({
      bucket: name,
      history: options.history,
      ttl: options.ttl ? nanos(options.ttl) : undefined,
      maxBytes: options.max_bytes,
      maxValueSize: options.maxValueSize,
      storage: options.storage,
      replicas: options.replicas,
      description: options.description,
      compression: options.compression,
      metadata: options.metadata,
    });
    if (options.republish) config.republish = options.republish;
    return new Bucket(this.#js, jsm, await jsm.streams.add(config), name);
  }

  /** Opens a bucket that exists (StreamNotFoundError when it does not). */
  async open(name: string): Promise<KV> {
    const jsm = await this.#manager();
    return new Bucket(this.#js, jsm, await jsm.streams.info(kvStreamName(checkBucket(name))), name);
  }

  /** The buckets of the account, with their status. */
  list(): Lister<KvStatus> {
    let streams: Lister<StreamInfo> | undefined;
    const next = async (): Promise<KvStatus[]> => {
      streams ??= (await this.#manager()).streams.list();
      // a page may hold no bucket while later ones do
      for (let page = await streams.next(); page.length > 0; page = await streams.next()) {
        const buckets = page.filter((s) => s.config.name.startsWith(KV_STREAM_PREFIX));
        if (buckets.length > 0) {
          return buckets.map((s) => kvStatus(s.config.name.slice(KV_STREAM_PREFIX.length), s));
        }
      }
      return [];
    };
    return {
      next,
      async *[Symbol.asyncIterator]() {
        for (let page = await next(); page.length > 0; page = await next()) yield* page;
      },
    };
  }

  #manager(): Promise<JetStreamManager> {
    this.#jsm ??= this.#js.jetstreamManager(false);
    return this.#jsm;
  }
}
