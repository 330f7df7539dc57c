import * as z from 'zod';
import { int, timestamp, uint } from './common.js';

/** STREAM.MSG.GET and DIRECT.GET request: exactly one way of choosing the message(s). */
export const msgGetRequestSchema = z.looseObject({
  seq: uint().optional(),
  last_by_subj: z.string().optional(),
  next_by_subj: z.string().optional(),
  /** Batched direct get (newer servers). */
  batch: int().optional(),
  max_bytes: int().optional(),
  start_time: timestamp().optional(),
  multi_last: z.array(z.string()).optional(),
  up_to_seq: uint().optional(),
  up_to_time: timestamp().optional(),
  no_hdr: z.boolean().optional(),
});
export type MsgGetRequest = z.infer<typeof msgGetRequestSchema>;

/** A stored message as STREAM.MSG.GET returns it; hdrs and data are base64. */
export const storedMessageSchema = z.looseObject({
  subject: z.string(),
  seq: uint(),
  /** Base64 of the NATS/1.0 header block; omitted when the message has none. */
  hdrs: z.string().optional(),
  /** Base64 payload; omitted when empty. */
  data: z.string().optional(),
  time: timestamp(),
});
export type StoredMessage = z.infer<typeof storedMessageSchema>;
