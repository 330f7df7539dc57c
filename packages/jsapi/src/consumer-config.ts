import * as z from 'zod';
import { durationNanos, int, metadata, timestamp, uint } from './common.js';

/**
 * ConsumerConfig with every field of current nats-server. As with StreamConfig, the schema
 * checks what the server's decoder checks; combination rules with their own error codes
 * (push vs pull options, start policies, backoff length) belong to the server.
 */

export const deliverPolicySchema = z.enum([
  'all',
  'last',
  'new',
  'by_start_sequence',
  'by_start_time',
  'last_per_subject',
]);
export const ackPolicySchema = z.enum(['none', 'all', 'explicit', 'flow_control']);
export const replayPolicySchema = z.enum(['instant', 'original']);
export const priorityPolicySchema = z.enum(['none', 'overflow', 'pinned_client', 'prioritized']);

export type DeliverPolicy = z.infer<typeof deliverPolicySchema>;
export type AckPolicy = z.infer<typeof ackPolicySchema>;
export type ReplayPolicy = z.infer<typeof replayPolicySchema>;
export type PriorityPolicy = z.infer<typeof priorityPolicySchema>;

export const consumerConfigSchema = z.looseObject({
  durable_name: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  deliver_policy: deliverPolicySchema.optional(),
  opt_start_seq: uint().optional(),
  opt_start_time: timestamp().optional(),
  ack_policy: ackPolicySchema.optional(),
  ack_wait: durationNanos().optional(),
  max_deliver: int().optional(),
  backoff: z.array(durationNanos()).optional(),
  filter_subject: z.string().optional(),
  filter_subjects: z.array(z.string()).optional(),
  replay_policy: replayPolicySchema.optional(),
  /** Push only: delivery rate limit in bits per second. */
  rate_limit_bps: uint().optional(),
  /** Percentage of acks sampled into `$JS.EVENT.METRIC.CONSUMER.ACK`, e.g. "100%". */
  sample_freq: z.string().optional(),
  max_waiting: int().optional(),
  max_ack_pending: int().optional(),
  flow_control: z.boolean().optional(),
  headers_only: z.boolean().optional(),
  /** Pull only: the largest batch a pull request may ask for. */
  max_batch: int().optional(),
  /** Pull only: the longest expires a pull request may ask for. */
  max_expires: durationNanos().optional(),
  /** Pull only: the largest max_bytes a pull request may ask for. */
  max_bytes: int().optional(),
  deliver_subject: z.string().optional(),
  deliver_group: z.string().optional(),
  idle_heartbeat: durationNanos().optional(),
  inactive_threshold: durationNanos().optional(),
  num_replicas: int().optional(),
  mem_storage: z.boolean().optional(),
  /** Internal consumers of mirrors and sources; not for clients. */
  direct: z.boolean().optional(),
  /** Internal: the consumer feeds a stream source (newer servers). */
  sourcing: z.boolean().optional(),
  metadata: metadata().optional(),
  pause_until: timestamp().optional(),
  priority_groups: z.array(z.string()).optional(),
  priority_policy: priorityPolicySchema.optional(),
  /** Pinned-client policy: how long a pin lasts without pulls. */
  priority_timeout: durationNanos().optional(),
});
export type ConsumerConfig = z.infer<typeof consumerConfigSchema>;

/** The values nats-server fills in when a consumer is created. */
export const consumerDefaults = {
  ackWaitNanos: 30_000_000_000,
  maxAckPending: 1000,
  maxWaiting: 512,
  ephemeralInactiveThresholdNanos: 5_000_000_000,
  priorityTimeoutNanos: 120_000_000_000,
  /** Heartbeat forced on `flow_control` ack policy consumers (newer servers). */
  flowControlHeartbeatNanos: 1_000_000_000,
} as const;

/**
 * The config as nats-server stores it after its defaults (consumer.go setConsumerConfigDefaults):
 * deliver all, instant replay, max_deliver -1; with acks, a 30 s ack_wait (or backoff[0]) and
 * max_ack_pending 1000; pull consumers wait for 512 requests; ephemerals (no durable_name) are
 * removed after 5 s of inactivity; a stream's consumer_limits supply missing values; the
 * `flow_control` ack policy turns on flow control with a 1 s heartbeat.
 */
export function consumerConfigWithDefaults(
  config: ConsumerConfig,
  streamLimits: { inactive_threshold?: number; max_ack_pending?: number } = {},
): ConsumerConfig {
  const out: ConsumerConfig = { ...config };
  out.deliver_policy ??= 'all';
  out.ack_policy ??= 'none';
  out.replay_policy ??= 'instant';
  if (!out.max_deliver || out.max_deliver < -1) out.max_deliver = -1;
  const acks = out.ack_policy !== 'none';
  if (acks && !out.ack_wait) {
    out.ack_wait = out.backoff?.length ? out.backoff[0] : consumerDefaults.ackWaitNanos;
  }
  if (!out.max_ack_pending && streamLimits.max_ack_pending) {
    out.max_ack_pending = streamLimits.max_ack_pending;
  }
  if (acks && !out.max_ack_pending) out.max_ack_pending = consumerDefaults.maxAckPending;
  const pull = !out.deliver_subject;
  if (pull && !out.max_waiting) out.max_waiting = consumerDefaults.maxWaiting;
  if (!out.inactive_threshold) {
    if (streamLimits.inactive_threshold) out.inactive_threshold = streamLimits.inactive_threshold;
    else if (!out.durable_name) {
      out.inactive_threshold = consumerDefaults.ephemeralInactiveThresholdNanos;
    }
  }
  if (out.priority_policy === 'pinned_client' && !out.priority_timeout) {
    out.priority_timeout = consumerDefaults.priorityTimeoutNanos;
  }
  if (out.ack_policy === 'flow_control') {
    out.flow_control = true;
    out.idle_heartbeat = consumerDefaults.flowControlHeartbeatNanos;
  }
  out.num_replicas ??= 0;
  return out;
}
