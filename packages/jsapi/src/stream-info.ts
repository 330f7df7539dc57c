import * as z from 'zod';
import { apiErrorSchema } from './api-error.js';
import { clusterInfoSchema, durationNanos, int, timestamp, uint } from './common.js';
import {
  externalStreamSchema,
  streamConfigSchema,
  subjectTransformSchema,
} from './stream-config.js';

/** Messages the store found damaged and could not recover. */
export const lostStreamDataSchema = z.looseObject({
  msgs: z.array(uint()).nullable().optional(),
  bytes: uint().optional(),
});

/** What a stream holds right now. */
export const streamStateSchema = z.looseObject({
  messages: uint(),
  bytes: uint(),
  first_seq: uint(),
  /** Go's zero time when the stream is empty. */
  first_ts: timestamp().optional(),
  last_seq: uint(),
  last_ts: timestamp().optional(),
  num_subjects: uint().optional(),
  /** Per-subject message counts; only when STREAM.INFO asked with subjects_filter. */
  subjects: z.record(z.string(), uint()).optional(),
  num_deleted: int().optional(),
  /** Deleted sequences; only when STREAM.INFO asked with deleted_details. */
  deleted: z.array(uint()).nullable().optional(),
  lost: lostStreamDataSchema.optional(),
  consumer_count: int(),
});
export type StreamState = z.infer<typeof streamStateSchema>;

/** Replication progress of a mirror or one source. */
export const streamSourceInfoSchema = z.looseObject({
  name: z.string(),
  filter_subject: z.string().optional(),
  subject_transforms: z.array(subjectTransformSchema).nullable().optional(),
  external: externalStreamSchema.optional(),
  lag: uint(),
  /** Nanoseconds since the last activity; -1 when never active. */
  active: durationNanos(),
  error: apiErrorSchema.optional(),
});
export type StreamSourceInfo = z.infer<typeof streamSourceInfoSchema>;

/** Another copy of the stream (a mirror) a client may read from instead. */
export const streamAlternateSchema = z.looseObject({
  name: z.string(),
  domain: z.string().optional(),
  cluster: z.string(),
});
export type StreamAlternate = z.infer<typeof streamAlternateSchema>;

export const streamInfoShape = {
  config: streamConfigSchema,
  created: timestamp(),
  state: streamStateSchema,
  domain: z.string().optional(),
  cluster: clusterInfoSchema.optional(),
  mirror: streamSourceInfoSchema.optional(),
  sources: z.array(streamSourceInfoSchema).optional(),
  alternates: z.array(streamAlternateSchema).optional(),
  /** Server time of the response (newer servers). */
  ts: timestamp().optional(),
};

/** A stream's configuration and state, as STREAM.INFO, CREATE, UPDATE and LIST return it. */
export const streamInfoSchema = z.looseObject(streamInfoShape);
export type StreamInfo = z.infer<typeof streamInfoSchema>;
