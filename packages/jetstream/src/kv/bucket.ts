import type { Payload } from '@slipstream/client';
import {
  KV_OPERATION_HEADER,
  type KvOperation,
  keyProblem,
  kvKeySubject,
  millis,
  type StreamInfo,
  searchKeyProblem,
} from '@slipstream/jsapi';
import { headers } from '@slipstream/protocol';
import { readStored } from '../buckets.js';
import { InvalidNameError, JetStreamApiCodes, JetStreamApiError } from '../errors.js';
import type { JetStreamClient, JetStreamManager } from '../jetstream-types.js';
import { storedEntry } from './entry.js';
import type {
  KvDeleteOptions,
  KvEntry,
  KvPurgeOptions,
  KvPutOptions,
  KvStatus,
  KvWatchEntry,
  KvWatcher,
  KvWatchOptions,
} from './types.js';
import { KvWatchInclude } from './types.js';
import { watchKeys } from './watch.js';

/** The header that makes a purge drop the key's earlier values. */
const ROLLUP_HEADER = 'Nats-Rollup';

/** A key-value bucket; the methods of @nats-io/kv's KV. */
export interface KV {
  /** Stores a value; resolves with its revision. */
  put(key: string, data: Payload, options?: Partial<KvPutOptions>): Promise<number>;
  /** The last value (or deletion mark) of a key, or that of `revision`; null when none. */
  get(key: string, options?: { revision: number }): Promise<KvEntry | null>;
  /**
   * Stores a value only if the key has none (never set, deleted or purged); with `markerTTL`
   * (a Go duration, the bucket needs `markerTTL`) the value goes away after it.
   */
  create(key: string, data: Payload, markerTTL?: string): Promise<number>;
  /** Stores a value only if the key's last revision is `version`. */
  update(key: string, data: Payload, version: number, timeout?: number): Promise<number>;
  /** Marks the key deleted; its earlier values stay in the history. */
  delete(key: string, options?: Partial<KvDeleteOptions>): Promise<void>;
  /** Marks the key purged and drops its earlier values; `ttl`: the mark too goes, after it. */
  purge(key: string, options?: Partial<KvPurgeOptions>): Promise<void>;
  /** The keys that have a value now (matching `filter`, default all). */
  keys(filter?: string | string[]): Promise<KvWatcher<string>>;
  /** Every value kept of the keys (default all), deletion marks included. */
  history(options?: { key?: string | string[] }): Promise<KvWatcher<KvWatchEntry>>;
  watch(options?: KvWatchOptions): Promise<KvWatcher<KvWatchEntry>>;
  status(): Promise<KvStatus>;
  /** Deletes the bucket and everything in it. */
  destroy(): Promise<boolean>;
}

function checkKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new InvalidNameError(problem);
  return key;
}

function checkSearchKeys(keys: string | string[] | undefined): string[] {
  const list = keys === undefined ? ['>'] : typeof keys === 'string' ? [keys] : keys;
  for (const key of list) {
    const problem = searchKeyProblem(key);
    if (problem) throw new InvalidNameError(problem);
  }
  return list;
}

/**
 * A bucket on its stream `KV_<bucket>`: a key is the subject `$KV.<bucket>.<key>`, a revision
 * the stream sequence, deletes and purges are empty messages marked by KV-Operation (a purge
 * also rolls the subject up), as @nats-io/kv and nats.go lay it out. Reads use direct get when
 * the stream allows it, unless `allowDirect` is false.
 */
export class Bucket implements KV {
  readonly bucket: string;
  readonly stream: string;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #direct: boolean;
  /** The bucket whose `$KV.<bucket>.` subjects hold the keys: this one, or a mirror's origin. */
  readonly #subjectsOf: string;

  constructor(
    js: JetStreamClient,
    jsm: JetStreamManager,
    info: StreamInfo,
    bucket: string,
    reads: { allowDirect: boolean },
  ) {
    this.#js = js;
    this.#jsm = jsm;
    this.bucket = bucket;
    this.stream = info.config.name;
    const { mirror } = info.config;
    // a mirror holds its origin's subjects, and writes go to the origin (as nats.go does)
    this.#subjectsOf = mirror ? mirror.name.replace(/^KV_/, '') : bucket;
    const streamAllows = (info.config.allow_direct || info.config.mirror_direct) ?? false;
    this.#direct = reads.allowDirect && streamAllows;
  }

  put(key: string, data: Payload, options: Partial<KvPutOptions> = {}): Promise<number> {
    return this.#put(key, data, options, undefined);
  }

  async #put(
    key: string,
    data: Payload,
    options: Partial<KvPutOptions>,
    ttl: string | undefined,
  ): Promise<number> {
    const ack = await this.#js.publish(this.#publishSubject(checkKey(key)), data, {
      ...(options.previousSeq !== undefined
        ? { expect: { lastSubjectSequence: options.previousSeq } }
        : {}),
      ...(options.timeout ? { timeout: options.timeout } : {}),
      ...(ttl ? { ttl } : {}),
    });
    return ack.seq;
  }

  async get(key: string, options?: { revision: number }): Promise<KvEntry | null> {
    const subject = kvKeySubject(this.#subjectsOf, checkKey(key));
    const query = options?.revision ? { seq: options.revision } : { last_by_subj: subject };
    const msg = await readStored(this.#jsm, { stream: this.stream, direct: this.#direct }, query);
    // a revision of another key is no value of this one
    if (!msg || msg.subject !== subject) return null;
    return storedEntry(this.bucket, key, msg);
  }

  async create(key: string, data: Payload, markerTTL?: string): Promise<number> {
    try {
      return await this.#put(key, data, { previousSeq: 0 }, markerTTL);
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
      // a deleted or purged key has a last revision (its mark): create over that one
      const last = await this.get(key);
      if (!last || last.operation === 'PUT') throw error;
      return this.#put(key, data, { previousSeq: last.revision }, markerTTL);
    }
  }

  update(key: string, data: Payload, version: number, timeout?: number): Promise<number> {
    return this.put(key, data, { previousSeq: version, ...(timeout ? { timeout } : {}) });
  }

  delete(key: string, options: Partial<KvDeleteOptions> = {}): Promise<void> {
    return this.#mark(key, 'DEL', options);
  }

  purge(key: string, options: Partial<KvPurgeOptions> = {}): Promise<void> {
    return this.#mark(key, 'PURGE', options);
  }

  async keys(filter?: string | string[]): Promise<KvWatcher<string>> {
    const entries = await this.#watch(
      {
        key: filter,
        headers_only: true,
        ignoreDeletes: true,
      },
      true,
    );
    return {
      async *[Symbol.asyncIterator]() {
        for await (const entry of entries) yield entry.key;
      },
      stop: () => entries.stop(),
      closed: () => entries.closed(),
    };
  }

  history(options: { key?: string | string[] } = {}): Promise<KvWatcher<KvWatchEntry>> {
    return this.#watch({ key: options.key, include: KvWatchInclude.AllHistory }, true);
  }

  watch(options: KvWatchOptions = {}): Promise<KvWatcher<KvWatchEntry>> {
    return this.#watch(options, false);
  }

  async status(): Promise<KvStatus> {
    return kvStatus(this.bucket, await this.#jsm.streams.info(this.stream));
  }

  destroy(): Promise<boolean> {
    return this.#jsm.streams.delete(this.stream);
  }

  #watch(options: KvWatchOptions, initialOnly: boolean): Promise<KvWatcher<KvWatchEntry>> {
    const target = {
      bucket: this.bucket,
      subjectsOf: this.#subjectsOf,
      stream: this.stream,
      keys: checkSearchKeys(options.key),
    };
    return watchKeys(this.#js, target, options, initialOnly);
  }

  async #mark(key: string, operation: KvOperation, options: Partial<KvPurgeOptions>) {
    const h = headers();
    h.set(KV_OPERATION_HEADER, operation);
    if (operation === 'PURGE') h.set(ROLLUP_HEADER, 'sub');
    await this.#js.publish(this.#publishSubject(checkKey(key)), undefined, {
      headers: h,
      ...(options.previousSeq !== undefined
        ? { expect: { lastSubjectSequence: options.previousSeq } }
        : {}),
      ...(operation === 'PURGE' && options.ttl ? { ttl: options.ttl } : {}),
    });
  }

  /** The subject a write goes to: through the API prefix under a domain, as nats.js does. */
  #publishSubject(key: string): string {
    const { domain, apiPrefix } = this.#js.getOptions();
    return kvKeySubject(this.#subjectsOf, key, {
      ...(domain ? { domain } : {}),
      ...(apiPrefix ? { apiPrefix } : {}),
    });
  }
}

function isWrongLastSequence(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence
  );
}

/** A bucket's status from its stream's info. */
export function kvStatus(bucket: string, info: StreamInfo): KvStatus {
  const { config, state } = info;
  const status: KvStatus = {
    bucket,
    values: state.messages,
    history: config.max_msgs_per_subject ?? 1,
    ttl: millis(config.max_age ?? 0),
    storage: config.storage ?? 'file',
    replicas: config.num_replicas ?? 1,
    description: config.description ?? '',
    max_bytes: config.max_bytes ?? -1,
    maxValueSize: config.max_msg_size ?? -1,
    size: state.bytes,
    compression: config.compression === 's2',
    markerTTL: millis(config.subject_delete_marker_ttl ?? 0),
    backingStore: 'JetStream',
    streamInfo: info,
  };
  if (config.metadata) status.metadata = config.metadata;
  return status;
}
