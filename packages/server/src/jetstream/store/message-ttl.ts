/**
 * Per-message TTLs (nats-server 2.11): a message's `Nats-TTL` header says how long it stays,
 * as a Go duration of at least one second (`30s`, `1h`), whole seconds (`30`), or `never`.
 * The rules are stream.go parseMessageTTL (v2.11.0:4307-4326).
 */
import { parseGoDuration } from '@slipstream/jsapi';
import { headerValue } from '../shared/header-block.js';

export const TTL_HEADER = 'Nats-TTL';
export const MARKER_REASON_HEADER = 'Nats-Marker-Reason';

/** Seconds a message lives: positive; 0 without a TTL; NEVER for a message max_age spares. */
export const NEVER = -1;

export class InvalidTtl extends Error {}

/** The TTL in seconds of a `Nats-TTL` value; throws InvalidTtl for a value nats-server refuses. */
export function parseTtl(value: string): number {
  if (value.toLowerCase() === 'never') return NEVER;
  const nanos = parseGoDuration(value);
  if (nanos !== undefined) {
    if (nanos < 1_000_000_000) throw new InvalidTtl(value);
    return Math.trunc(nanos / 1_000_000_000);
  }
  // Go's parseInt64 takes digits only; anything else is a parse failure.
  if (!/^\d+$/.test(value)) throw new InvalidTtl(value);
  return Number(value);
}

/** The TTL of a stored or incoming message (0 without the header); throws InvalidTtl. */
export function messageTtl(headers: Uint8Array | undefined): number {
  const value = headers && headers.length > 0 ? headerValue(headers, TTL_HEADER) : undefined;
  return value ? parseTtl(value) : 0;
}

/** As messageTtl, but a bad value counts as no TTL (what a store does with one it holds). */
export function storedTtl(headers: Uint8Array | undefined): number {
  try {
    return messageTtl(headers);
  } catch {
    return 0;
  }
}
