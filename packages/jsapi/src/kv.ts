import { bucketNameProblem, keyProblem } from './names.js';
import { defaultDuplicateWindow, type StorageType, type StreamConfig } from './stream-config.js';
import { type ApiPrefixOptions, apiPrefix } from './subjects.js';

/**
 * Key-value buckets are a client convention on top of a stream (nats.go jetstream/kv.go):
 * bucket B lives in stream `KV_B`, key K is the subject `$KV.B.K`, a revision is the stream
 * sequence, and deletes/purges are marked by the `KV-Operation` header.
 */

export const KV_STREAM_PREFIX = 'KV_';
export const KV_SUBJECT_PREFIX = '$KV';
/** Header that marks a delete (`DEL`) or purge (`PURGE`); absent on a put. */
export const KV_OPERATION_HEADER = 'KV-Operation';
export type KvOperation = 'PUT' | 'DEL' | 'PURGE';
/** The most values per key a bucket can keep. */
export const KV_MAX_HISTORY = 64;

/** The stream that holds a bucket. */
export const kvStreamName = (bucket: string) => `${KV_STREAM_PREFIX}${bucket}`;

/** The subjects of a bucket's stream: `$KV.<bucket>.>`. */
export const kvStreamSubject = (bucket: string) => `${KV_SUBJECT_PREFIX}.${bucket}.>`;

/**
 * The subject a put of `key` is published on. Under a domain or an imported API prefix the
 * publish goes through the API prefix (`$JS.<domain>.API.$KV.<bucket>.<key>`).
 */
export function kvKeySubject(bucket: string, key: string, options: ApiPrefixOptions = {}): string {
  const subject = `${KV_SUBJECT_PREFIX}.${bucket}.${key}`;
  return options.domain || options.apiPrefix ? `${apiPrefix(options)}.${subject}` : subject;
}

/** Bucket and key of a `$KV.<bucket>.<key>` subject, or undefined when it is not one. */
export function parseKvSubject(subject: string): { bucket: string; key: string } | undefined {
  const m = /^\$KV\.([^.]+)\.(.+)$/.exec(subject);
  if (!m || bucketNameProblem(m[1]!) || keyProblem(m[2]!)) return undefined;
  return { bucket: m[1]!, key: m[2]! };
}

/** What a bucket is created with; the names mirror the official clients' options. */
export interface KvBucketOptions {
  bucket: string;
  description?: string;
  /** Values kept per key: 1 (default) to 64. */
  history?: number;
  /** Nanoseconds a value lives; 0 = forever. */
  ttl?: number;
  maxBytes?: number;
  maxValueSize?: number;
  storage?: StorageType;
  replicas?: number;
  compression?: boolean;
  metadata?: Record<string, string>;
  /** Nanoseconds delete markers stay when values expire (newer servers). */
  limitMarkerTtl?: number;
}

/** The stream config of a bucket, as the official clients create it. */
export function kvStreamConfig(options: KvBucketOptions): StreamConfig {
  const ttl = options.ttl ?? 0;
  const config: StreamConfig = {
    name: kvStreamName(options.bucket),
    subjects: [kvStreamSubject(options.bucket)],
    max_msgs_per_subject: options.history ?? 1,
    max_bytes: options.maxBytes ?? -1,
    max_msg_size: options.maxValueSize ?? -1,
    max_age: ttl,
    storage: options.storage ?? 'file',
    num_replicas: options.replicas ?? 1,
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: true,
    discard: 'new',
    max_msgs: -1,
    max_consumers: -1,
    duplicate_window: defaultDuplicateWindow(ttl),
  };
  if (options.description) config.description = options.description;
  if (options.compression) config.compression = 's2';
  if (options.metadata) config.metadata = options.metadata;
  if (options.limitMarkerTtl) {
    config.allow_msg_ttl = true;
    config.subject_delete_marker_ttl = options.limitMarkerTtl;
  }
  return config;
}
