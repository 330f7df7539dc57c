import * as z from 'zod';
import { int } from './common.js';

/** JetStream limits of an account (or of one of its tiers); -1 means unlimited. */
export const accountLimitsSchema = z.looseObject({
  max_memory: int(),
  max_storage: int(),
  max_streams: int(),
  max_consumers: int(),
  max_ack_pending: int().optional(),
  memory_max_stream_bytes: int().optional(),
  storage_max_stream_bytes: int().optional(),
  max_bytes_required: z.boolean().optional(),
});
export type AccountLimits = z.infer<typeof accountLimitsSchema>;

/** Usage of an account or of one tier (R1, R3, ...). */
export const jetStreamTierSchema = z.looseObject({
  memory: int(),
  storage: int(),
  reserved_memory: int().optional(),
  reserved_storage: int().optional(),
  streams: int(),
  consumers: int(),
  limits: accountLimitsSchema,
});
export type JetStreamTier = z.infer<typeof jetStreamTierSchema>;

/** Counters of the account's API use; `level` is the server's API level (newer servers). */
export const apiStatsSchema = z.looseObject({
  level: int().optional(),
  total: int(),
  errors: int(),
  inflight: int().optional(),
});
export type ApiStats = z.infer<typeof apiStatsSchema>;

export const accountInfoShape = {
  ...jetStreamTierSchema.shape,
  domain: z.string().optional(),
  api: apiStatsSchema,
  tiers: z.record(z.string(), jetStreamTierSchema).optional(),
};
