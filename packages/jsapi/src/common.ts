import * as z from 'zod';
import { apiErrorSchema } from './api-error.js';
import { timestampString } from './time.js';

/**
 * Building blocks shared by the message schemas. Every object is a z.looseObject: fields a
 * newer server adds pass through parsing untouched, and nothing is defaulted while parsing.
 */

/** An integer JSON number (Go int/int64/uint64). */
export const int = () => z.number().int();
/** An integer ≥ 0 (Go uint64 counters and sequences). */
export const uint = () => z.number().int().nonnegative();
/**
 * A duration in nanoseconds (Go time.Duration). Past 2^53 ns (about 104 days) a JSON number
 * loses precision but stays an integer, and servers send such values (a pause until next year,
 * a max_age of years): they are accepted up to int64's range, as Go's encoder writes them.
 */
export const durationNanos = () =>
  z
    .number()
    .refine(Number.isInteger, 'expected an integer number of nanoseconds')
    .min(-(2 ** 63))
    .max(2 ** 63);
/** A duration in nanoseconds that must not be negative. */
export const positiveDurationNanos = () => durationNanos().nonnegative();
/** An RFC 3339 timestamp string, kept as sent (nanoseconds preserved). */
export const timestamp = () => timestampString;
/** A string → string map (metadata). */
export const metadata = () => z.record(z.string(), z.string());

/** The `type` of every API response: `io.nats.jetstream.api.v1.<suffix>`. */
export const apiResponseType = (suffix: string) => `io.nats.jetstream.api.v1.${suffix}` as const;

/**
 * A response of the API: either the success shape or `{type, error}`. The error branch is tried
 * first so that success shapes with only optional fields cannot swallow an error.
 */
export function apiResponse<Shape extends z.core.$ZodLooseShape>(suffix: string, shape: Shape) {
  const type = z.literal(apiResponseType(suffix));
  return z.union([
    z.looseObject({ type, error: apiErrorSchema }),
    z.looseObject({ type, ...shape }),
  ]);
}

/** Fields of a paged response (names/lists). */
export const pagedShape = {
  total: int(),
  offset: int(),
  limit: int(),
};

/** Fields of a STREAM.LIST / CONSUMER.LIST response: a page, plus what a cluster could not list. */
export const listShape = {
  ...pagedShape,
  /** Members that did not answer in time (clustered). */
  missing: z.array(z.string()).optional(),
  /** Members that are offline, with the reason (newer servers). */
  offline: z.record(z.string(), z.string()).optional(),
};

/** Fields of a paged request. A negative offset is accepted (Go's int) and means the start. */
export const pagedRequestShape = {
  offset: int().optional(),
};

/** `{"success": true}` responses (delete, stepdown, peer remove, ...). */
export const successShape = { success: z.boolean() };

/** A placement directive for a stream or a leader stepdown. */
export const placementSchema = z.looseObject({
  cluster: z.string().optional(),
  tags: z.array(z.string()).optional(),
  preferred: z.string().optional(),
});
export type Placement = z.infer<typeof placementSchema>;

/** A peer of a RAFT group (stream/consumer replicas, advisories). */
export const peerInfoSchema = z.looseObject({
  name: z.string(),
  current: z.boolean(),
  observer: z.boolean().optional(),
  offline: z.boolean().optional(),
  /** Nanoseconds since the peer was last seen. */
  active: durationNanos(),
  lag: uint().optional(),
  peer: z.string().optional(),
  pending: uint().optional(),
});
export type PeerInfo = z.infer<typeof peerInfoSchema>;

/** Cluster information of a stream or consumer. */
export const clusterInfoSchema = z.looseObject({
  name: z.string().optional(),
  raft_group: z.string().optional(),
  leader: z.string().optional(),
  leader_since: timestamp().optional(),
  system_account: z.boolean().optional(),
  traffic_account: z.string().optional(),
  replicas: z.array(peerInfoSchema).optional(),
});
export type ClusterInfo = z.infer<typeof clusterInfoSchema>;
