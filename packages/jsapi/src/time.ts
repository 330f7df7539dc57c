import * as z from 'zod';

/**
 * JetStream sends durations as integer nanoseconds (Go's time.Duration) and times as RFC 3339
 * strings with up to nine fractional digits. A JavaScript Date keeps milliseconds only, so the
 * schemas keep timestamps as strings and these helpers convert without losing the nanoseconds.
 */

const NANOS_PER_MILLI = 1_000_000;

/** Milliseconds to the nanoseconds JetStream expects in duration fields. */
export function nanos(ms: number): number {
  return Math.round(ms * NANOS_PER_MILLI);
}

/** Nanoseconds from a JetStream duration field to milliseconds (fractions kept). */
export function millis(ns: number): number {
  return ns / NANOS_PER_MILLI;
}

/** Go's zero time, which the server sends for "never" (e.g. an empty stream's first_ts). */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** A point in time with nanosecond precision: whole seconds since the Unix epoch plus nanos. */
export interface Timestamp {
  readonly seconds: number;
  /** 0 ≤ nanos < 1e9 */
  readonly nanos: number;
}

const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The zod rule for a timestamp field: an RFC 3339 string, kept as sent. */
export const timestampString = z.string().regex(rfc3339, 'must be an RFC 3339 timestamp');

/** Parses an RFC 3339 timestamp keeping all nine fractional digits; undefined when malformed. */
export function parseTimestamp(text: string): Timestamp | undefined {
  const m = rfc3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = m;
  if (+mo! < 1 || +mo! > 12 || +d! < 1 || +d! > 31 || +h! > 23 || +mi! > 59 || +s! > 60) {
    return undefined;
  }
  let seconds = secondsSinceEpoch(+y!, +mo!, +d!, +h!, +mi!, +s!);
  if (!zulu) {
    const offset = (+oh! * 60 + +om!) * 60;
    seconds += sign === '+' ? -offset : offset;
  }
  const nanos = fraction ? Number(fraction.padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

/** Formats like Go's RFC3339Nano in UTC: trailing zeros of the fraction trimmed. */
export function formatTimestamp(ts: Timestamp): string {
  const date = new Date(ts.seconds * 1000);
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  const pad = (n: number) => String(n).padStart(2, '0');
  const base = `${year}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  const fraction = ts.nanos ? `.${String(ts.nanos).padStart(9, '0').replace(/0+$/, '')}` : '';
  return `${base}${fraction}Z`;
}

/** A Date (millisecond precision) as a Timestamp. */
export function timestampFromDate(date: Date): Timestamp {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * NANOS_PER_MILLI };
}

/** A Timestamp as a Date; the sub-millisecond nanoseconds are dropped. */
export function timestampToDate(ts: Timestamp): Date {
  return new Date(ts.seconds * 1000 + Math.floor(ts.nanos / NANOS_PER_MILLI));
}

/** Nanoseconds since the Unix epoch (as in `$JS.ACK` subjects), exact as a bigint. */
export function timestampToEpochNanos(ts: Timestamp): bigint {
  return BigInt(ts.seconds) * 1_000_000_000n + BigInt(ts.nanos);
}

/** The inverse of timestampToEpochNanos. */
export function timestampFromEpochNanos(ns: bigint): Timestamp {
  let seconds = ns / 1_000_000_000n;
  let rest = ns - seconds * 1_000_000_000n;
  if (rest < 0n) {
    seconds -= 1n;
    rest += 1_000_000_000n;
  }
  return { seconds: Number(seconds), nanos: Number(rest) };
}

/** Orders two timestamps: negative, zero or positive like a sort comparator. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return a.seconds !== b.seconds ? a.seconds - b.seconds : a.nanos - b.nanos;
}

/** Seconds since the epoch for a proleptic Gregorian UTC wall time (valid for year 1 on). */
function secondsSinceEpoch(y: number, mo: number, d: number, h: number, mi: number, s: number) {
  // Days from civil (Howard Hinnant's algorithm): exact for every year Go can print.
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return days * 86_400 + h * 3600 + mi * 60 + s;
}
