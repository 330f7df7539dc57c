import * as z from 'zod';
import { apiErrorSchema } from './api-error.js';
import { int, uint } from './common.js';

/**
 * The reply to a publish into a stream. On failure `error` is set and `seq` is 0; a duplicate
 * (same Nats-Msg-Id within the duplicate window) reports the original sequence.
 */
export const pubAckSchema = z.looseObject({
  stream: z.string(),
  seq: uint().optional(),
  duplicate: z.boolean().optional(),
  domain: z.string().optional(),
  /** Counter streams: the counter's value after this increment. */
  val: z.string().optional(),
  /** Atomic batch publish: the batch id and how many messages it committed. */
  batch: z.string().optional(),
  count: int().optional(),
  error: apiErrorSchema.optional(),
});
export type PubAck = z.infer<typeof pubAckSchema>;
