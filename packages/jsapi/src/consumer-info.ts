import * as z from 'zod';
import { clusterInfoSchema, durationNanos, int, timestamp, uint } from './common.js';
import { consumerConfigSchema } from './consumer-config.js';

/** A position of a consumer: last delivered, or the ack floor. */
export const sequenceInfoSchema = z.looseObject({
  consumer_seq: uint(),
  stream_seq: uint(),
  last_active: timestamp().optional(),
});
export type SequenceInfo = z.infer<typeof sequenceInfoSchema>;

/** State of one priority group of a consumer. */
export const priorityGroupStateSchema = z.looseObject({
  group: z.string(),
  pinned_client_id: z.string().optional(),
  pinned_ts: timestamp().optional(),
});
export type PriorityGroupState = z.infer<typeof priorityGroupStateSchema>;

export const consumerInfoShape = {
  stream_name: z.string(),
  name: z.string(),
  created: timestamp(),
  config: consumerConfigSchema,
  delivered: sequenceInfoSchema,
  ack_floor: sequenceInfoSchema,
  num_ack_pending: int(),
  num_redelivered: int(),
  num_waiting: int(),
  num_pending: uint(),
  cluster: clusterInfoSchema.optional(),
  /** Push consumers: whether a subscriber is on the deliver subject. */
  push_bound: z.boolean().optional(),
  paused: z.boolean().optional(),
  /** Nanoseconds until a paused consumer resumes. */
  pause_remaining: durationNanos().optional(),
  /** Server time of the response (newer servers). */
  ts: timestamp().optional(),
  priority_groups: z.array(priorityGroupStateSchema).optional(),
};

/** A consumer's configuration and delivery state. */
export const consumerInfoSchema = z.looseObject(consumerInfoShape);
export type ConsumerInfo = z.infer<typeof consumerInfoSchema>;
