import { formatTimestamp, timestampFromEpochNanos, ZERO_TIME } from '@slipstream/jsapi';

/** A nanosecond time as nats-server writes it (RFC 3339, nanoseconds); Go's zero time for 0. */
export function wireTime(ns: bigint): string {
  return ns === 0n ? ZERO_TIME : formatTimestamp(timestampFromEpochNanos(ns));
}

/** Now, in nanoseconds since the epoch. */
export function nowNanos(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
