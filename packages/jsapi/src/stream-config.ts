import * as z from 'zod';
import {
  durationNanos,
  int,
  metadata,
  placementSchema,
  positiveDurationNanos,
  timestamp,
  uint,
} from './common.js';

/**
 * StreamConfig with every field of current nats-server. The schema checks what the server's
 * JSON decoder checks (types, enums, unsigned numbers), so a request it rejects is one the
 * server answers with "invalid JSON"; semantic rules with their own error codes (name
 * characters, limits, combinations) are the server's to apply, with the helpers in names.ts.
 */

export const retentionPolicySchema = z.enum(['limits', 'interest', 'workqueue']);
export const discardPolicySchema = z.enum(['old', 'new']);
export const storageTypeSchema = z.enum(['file', 'memory']);
export const storeCompressionSchema = z.enum(['none', 's2']);
export const persistModeSchema = z.enum(['default', 'async']);

export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;
export type DiscardPolicy = z.infer<typeof discardPolicySchema>;
export type StorageType = z.infer<typeof storageTypeSchema>;
export type StoreCompression = z.infer<typeof storeCompressionSchema>;
export type PersistMode = z.infer<typeof persistModeSchema>;

/**
 * `persist_mode` as nats-server reads it: the empty string is the default mode too
 * (PersistModeType.UnmarshalJSON, v2.12.15 stream.go:228-236), so it parses as `default`.
 */
const persistModeFieldSchema = z.union([
  persistModeSchema,
  z
    .literal('')
    .transform((): PersistMode => 'default')
    .pipe(persistModeSchema),
]);

/** A subject mapping: messages on `src` are stored under `dest`. */
export const subjectTransformSchema = z.looseObject({
  src: z.string(),
  dest: z.string(),
});
export type SubjectTransform = z.infer<typeof subjectTransformSchema>;

/** Republish stored messages to another subject. */
export const republishSchema = z.looseObject({
  /** Omitted (empty) means every subject of the stream. */
  src: z.string().optional(),
  dest: z.string(),
  headers_only: z.boolean().optional(),
});
export type Republish = z.infer<typeof republishSchema>;

/** A mirror or source in another account or domain. */
export const externalStreamSchema = z.looseObject({
  /** Subject prefix under which the other side's `$JS.API` is imported. */
  api: z.string(),
  deliver: z.string().optional(),
});
export type ExternalStream = z.infer<typeof externalStreamSchema>;

/** Where a mirror or source comes from. */
export const streamSourceSchema = z.looseObject({
  name: z.string(),
  opt_start_seq: uint().optional(),
  opt_start_time: timestamp().optional(),
  filter_subject: z.string().optional(),
  subject_transforms: z.array(subjectTransformSchema).nullable().optional(),
  external: externalStreamSchema.optional(),
  /** Newer servers: a named durable consumer (and its deliver subject) feeds this source. */
  consumer: z
    .looseObject({ name: z.string().optional(), deliver_subject: z.string().optional() })
    .optional(),
  /** Older servers echo the resolved domain of an external source. */
  domain: z.string().optional(),
});
export type StreamSource = z.infer<typeof streamSourceSchema>;

/** Limits a stream imposes on, and defaults it gives to, its consumers. */
export const streamConsumerLimitsSchema = z.looseObject({
  inactive_threshold: durationNanos().optional(),
  max_ack_pending: int().optional(),
});
export type StreamConsumerLimits = z.infer<typeof streamConsumerLimitsSchema>;

export const streamConfigSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  subjects: z.array(z.string()).optional(),
  retention: retentionPolicySchema.optional(),
  max_consumers: int().optional(),
  max_msgs: int().optional(),
  max_bytes: int().optional(),
  max_age: durationNanos().optional(),
  max_msgs_per_subject: int().optional(),
  max_msg_size: int().optional(),
  discard: discardPolicySchema.optional(),
  storage: storageTypeSchema.optional(),
  num_replicas: int().optional(),
  no_ack: z.boolean().optional(),
  /** Set by the server for streams made from a (now removed) stream template. */
  template_owner: z.string().optional(),
  duplicate_window: durationNanos().optional(),
  placement: placementSchema.optional(),
  mirror: streamSourceSchema.optional(),
  sources: z.array(streamSourceSchema).optional(),
  compression: storeCompressionSchema.optional(),
  first_seq: uint().optional(),
  subject_transform: subjectTransformSchema.optional(),
  republish: republishSchema.optional(),
  allow_direct: z.boolean().optional(),
  mirror_direct: z.boolean().optional(),
  discard_new_per_subject: z.boolean().optional(),
  sealed: z.boolean().optional(),
  deny_delete: z.boolean().optional(),
  deny_purge: z.boolean().optional(),
  allow_rollup_hdrs: z.boolean().optional(),
  consumer_limits: streamConsumerLimitsSchema.optional(),
  allow_msg_ttl: z.boolean().optional(),
  subject_delete_marker_ttl: positiveDurationNanos().optional(),
  allow_msg_counter: z.boolean().optional(),
  allow_atomic: z.boolean().optional(),
  allow_msg_schedules: z.boolean().optional(),
  allow_batched: z.boolean().optional(),
  persist_mode: persistModeFieldSchema.optional(),
  metadata: metadata().optional(),
});
export type StreamConfig = z.infer<typeof streamConfigSchema>;

/** nats-server's default duplicate window: 2 minutes. */
export const DEFAULT_DUPLICATE_WINDOW_NANOS = 120_000_000_000;

/** The duplicate window nats-server (and the KV clients) choose: 2 minutes, or max_age if shorter. */
export function defaultDuplicateWindow(maxAgeNanos: number): number {
  return maxAgeNanos > 0 && maxAgeNanos < DEFAULT_DUPLICATE_WINDOW_NANOS
    ? maxAgeNanos
    : DEFAULT_DUPLICATE_WINDOW_NANOS;
}

/**
 * The config as nats-server stores it after applying its defaults (stream.go checkStreamCfg):
 * unlimited limits as -1, limits retention, old discard, file storage, one replica, a two-minute
 * duplicate window (shortened to max_age when that is smaller; none for mirrors), the stream's
 * own name as its subject when it has no subjects, mirror or sources, and the boolean flags the
 * server always echoes. Fields already set are kept. As in nats-server 2.9.10, sourcing streams
 * get the duplicate window too (newer servers leave it unset for them).
 */
export function streamConfigWithDefaults(config: StreamConfig): StreamConfig {
  const out: StreamConfig = { ...config };
  const unlimited = (value: number | undefined) =>
    value === undefined || value === 0 || value < -1 ? -1 : value;
  out.retention ??= 'limits';
  out.max_consumers = unlimited(out.max_consumers);
  out.max_msgs = unlimited(out.max_msgs);
  out.max_bytes = unlimited(out.max_bytes);
  out.max_msgs_per_subject = unlimited(out.max_msgs_per_subject);
  out.max_msg_size = unlimited(out.max_msg_size);
  out.max_age ??= 0;
  out.discard ??= 'old';
  out.storage ??= 'file';
  if (!out.num_replicas) out.num_replicas = 1;
  if (!out.duplicate_window && !out.mirror)
    out.duplicate_window = defaultDuplicateWindow(out.max_age);
  if (!out.subjects?.length && !out.mirror && !out.sources?.length) out.subjects = [out.name];
  out.allow_direct ??= false;
  out.mirror_direct ??= false;
  out.sealed ??= false;
  out.deny_delete ??= false;
  out.deny_purge ??= false;
  out.allow_rollup_hdrs ??= false;
  return out;
}
