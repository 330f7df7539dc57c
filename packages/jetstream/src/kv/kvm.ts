import type { NatsConnection } from '@slipstream/client';
import {
  KV_STREAM_PREFIX,
  kvStreamConfig,
  kvStreamName,
  kvStreamSubject,
  nanos,
  type StreamSource,
} from '@slipstream/jsapi';
import { asJetStreamClient, bucketLister, checkBucket } from '../buckets.js';
import { StreamNotFoundError } from '../errors.js';
import type { JetStreamClient, JetStreamManager } from '../jetstream-types.js';
import type { Lister } from '../lister.js';
import { Bucket, type KV, kvStatus } from './bucket.js';
import type { KvOptions, KvStatus } from './types.js';

/**
 * The entry point to key-value buckets, as @nats-io/kv's Kvm: `new Kvm(js)` (or a connection,
 * for a JetStream client with default options).
 */
export class Kvm {
  readonly #js: JetStreamClient;
  #jsm: Promise<JetStreamManager> | undefined;

  constructor(js: JetStreamClient | NatsConnection) {
    this.#js = asJetStreamClient(js);
  }

  /**
   * Opens the bucket, creating it with `options` when it does not exist (an existing bucket is
   * opened as it is). Times are milliseconds. compression, metadata and sources need
   * nats-server 2.10, markerTTL 2.11 (refused before an older server); they are only sent when
   * set.
   */
  async create(name: string, options: Partial<KvOptions> = {}): Promise<KV> {
    const jsm = await this.#manager();
    const stream = kvStreamName(checkBucket(name));
    const reads = { allowDirect: options.allow_direct ?? true };
    try {
      return new Bucket(this.#js, jsm, await jsm.streams.info(stream), name, reads);
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
      limitMarkerTtl: options.markerTTL ? nanos(options.markerTTL) : undefined,
    });
    config.allow_direct = reads.allowDirect;
    if (options.republish) config.republish = options.republish;
    if (options.mirror) {
      // a mirror has no subjects of its own: it copies its origin's, answering direct gets
      const { name: origin } = options.mirror;
      config.mirror = { ...options.mirror, name: kvStreamName(origin.replace(/^KV_/, '')) };
      config.mirror_direct = true;
      delete config.subjects;
    } else if (options.sources) {
      config.sources = options.sources.map((source) => gathered(source, name));
    }
    return new Bucket(this.#js, jsm, await jsm.streams.add(config), name, reads);
  }

  /**
   * Opens a bucket that exists (StreamNotFoundError when it does not); `allow_direct: false`
   * reads through the stream leader.
   */
  async open(name: string, options: Partial<Pick<KvOptions, 'allow_direct'>> = {}): Promise<KV> {
    const jsm = await this.#manager();
    const info = await jsm.streams.info(kvStreamName(checkBucket(name)));
    return new Bucket(this.#js, jsm, info, name, { allowDirect: options.allow_direct ?? true });
  }

  /** The buckets of the account, with their status. */
  list(): Lister<KvStatus> {
    return bucketLister(() => this.#manager(), KV_STREAM_PREFIX, kvStatus);
  }

  #manager(): Promise<JetStreamManager> {
    this.#jsm ??= this.#js.jetstreamManager(false);
    return this.#jsm;
  }
}

/**
 * A source of bucket `into`: the source bucket's stream, its keys moved to `into`'s subjects
 * unless it is external (in another domain or account, whose subjects are its own affair), as
 * nats.js v3 does.
 */
function gathered(source: StreamSource, into: string): StreamSource {
  const bucket = source.name.replace(/^KV_/, '');
  const result: StreamSource = { ...source, name: kvStreamName(bucket) };
  if (!source.external && bucket !== into) {
    result.subject_transforms = [{ src: kvStreamSubject(bucket), dest: kvStreamSubject(into) }];
  }
  return result;
}
