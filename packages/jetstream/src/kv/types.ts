import type { Republish, StorageType, StreamInfo, StreamSource } from '@slipstream/jsapi';
import type { Watcher } from '../ordered-consumer-watch.js';

/** One value of a key, or the mark of its deletion; the shape of @nats-io/kv's KvEntry. */
export interface KvEntry {
  bucket: string;
  key: string;
  value: Uint8Array;
  created: Date;
  /** The stream sequence of the value: what `update` and `previousSeq` compare with. */
  revision: number;
  /** In a watch: how many values the watcher has still to see after this one. */
  delta?: number;
  operation: 'PUT' | 'DEL' | 'PURGE';
  /** Bytes of the value (from the Nats-Msg-Size header when only headers were read). */
  length: number;
  /** The key as stored (the same as `key`: this client has no key codec). */
  rawKey: string;
  json<T>(): T;
  string(): string;
}

/** An entry seen by a watch: `isUpdate` once the values present at the start were all seen. */
export interface KvWatchEntry extends KvEntry {
  isUpdate: boolean;
}

/** What a bucket is created with, as @nats-io/kv names it. Times in milliseconds. */
export interface KvLimits {
  description: string;
  replicas: number;
  /** Values kept per key: 1 (default) to 64. */
  history: number;
  max_bytes: number;
  maxValueSize: number;
  /** Milliseconds a value lives; 0 (default) forever. */
  ttl: number;
  storage: StorageType;
  republish: Republish;
  /**
   * Make the bucket a mirror of another (`name`: the origin bucket, with or without `KV_`):
   * reads come from the mirror, writes go to the origin.
   */
  mirror: StreamSource;
  /** s2 compression of the stream (nats-server 2.10+); only sent when true. */
  compression: boolean;
  /**
   * Buckets whose keys this one gathers (`name`: the bucket, with or without `KV_`): their
   * `$KV.<source>.` subjects are rewritten to this bucket's (nats-server 2.10 subject
   * transforms), except for an `external` source. Not with `mirror`.
   */
  sources: StreamSource[];
  /**
   * Milliseconds a marker stays when a key's value is removed by `ttl` or a per-key TTL: turns
   * on the stream's `allow_msg_ttl` and `subject_delete_marker_ttl` (nats-server 2.11), which
   * cannot be turned off again.
   */
  markerTTL: number;
}

export interface KvOptions extends KvLimits {
  /** Milliseconds to wait for the server (default: the JetStream client's). */
  timeout: number;
  /**
   * Reads by direct get, from any replica (faster, but a read may miss the latest write): the
   * new bucket's stream gets `allow_direct` as given (default true), and false makes this
   * client read through the stream leader even when the stream allows direct gets.
   */
  allow_direct: boolean;
  /** Stream metadata (nats-server 2.10+); only sent when given. */
  metadata: Record<string, string>;
}

/** What a bucket is like now; the fields of @nats-io/kv's KvStatus. */
export interface KvStatus {
  bucket: string;
  /** Messages in the bucket's stream: values and deletion marks of all keys. */
  values: number;
  history: number;
  /** Milliseconds a value lives; 0 forever. */
  ttl: number;
  storage: StorageType;
  replicas: number;
  description: string;
  max_bytes: number;
  maxValueSize: number;
  /** Bytes the bucket's stream holds. */
  size: number;
  compression: boolean;
  metadata?: Record<string, string>;
  /** Milliseconds a removal marker stays (see KvLimits.markerTTL); 0 for none. */
  markerTTL: number;
  backingStore: 'JetStream';
  streamInfo: StreamInfo;
}

export const KvWatchInclude = {
  /** The last value of each key, then the updates (the default). */
  LastValue: '',
  /** Every value kept of each key, then the updates. */
  AllHistory: 'history',
  /** Only what changes after the watch starts. */
  UpdatesOnly: 'updates',
} as const;
export type KvWatchInclude = (typeof KvWatchInclude)[keyof typeof KvWatchInclude];

export interface KvWatchOptions {
  /** Keys to watch (`*` and `>` allowed); default all. */
  key?: string | string[];
  /** Read no values, only what they are (length from Nats-Msg-Size). */
  headers_only?: boolean;
  /** Leave out deletes and purges. */
  ignoreDeletes?: boolean;
  include?: KvWatchInclude;
  /** Start at this revision (a stream sequence) instead. */
  resumeFromRevision?: number;
}

export interface KvPutOptions {
  /** The key's last revision must be this (0: the key must have no value). */
  previousSeq: number;
  timeout: number;
}

export interface KvDeleteOptions {
  previousSeq: number;
}

export interface KvPurgeOptions extends KvDeleteOptions {
  /**
   * How long the purge marker itself stays, a Go duration (`"30s"`): the bucket needs
   * `markerTTL` (nats-server 2.11).
   */
  ttl: string;
}

/** Entries (or keys) as they come; `stop()` ends the iteration. */
export type KvWatcher<T> = Watcher<T>;
