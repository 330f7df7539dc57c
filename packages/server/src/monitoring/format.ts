/**
 * Go's formatting of times, durations and JSON, so monitoring output reads exactly like
 * nats-server's to tools that parse it.
 */
import { randomUUID } from 'node:crypto';

/** RFC 3339 in UTC with the fraction's trailing zeros trimmed, like Go's time.RFC3339Nano. */
export function rfc3339(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** nats-server's uptime/idle format: whole seconds as `1y2d3h4m5s`, leading zero units dropped. */
export function uptime(ms: number): string {
  const secs = Math.max(0, Math.floor(ms / 1000));
  const mins = Math.floor(secs / 60);
  const hours = Math.floor(mins / 60);
  const days = Math.floor(hours / 24);
  const years = Math.floor(days / 365);
  const hms = `${hours % 24}h${mins % 60}m${secs % 60}s`;
  if (years > 0) return `${years}y${days % 365}d${hms}`;
  if (days > 0) return `${days}d${hms}`;
  if (hours > 0) return hms;
  if (mins > 0) return `${mins}m${secs % 60}s`;
  return `${secs}s`;
}

/** Go's time.Duration.String for a duration in (fractional) milliseconds: `707µs`, `1.5ms`, `2m3.5s`. */
export function goDuration(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const abs = Math.abs(ns);
  if (abs < 1_000) return `${sign}${abs}ns`;
  if (abs < 1_000_000) return `${sign}${decimal(abs, 1_000)}µs`;
  if (abs < 1_000_000_000) return `${sign}${decimal(abs, 1_000_000)}ms`;
  const totalSeconds = Math.floor(abs / 1e9);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = decimal(abs - (hours * 3600 + minutes * 60) * 1e9, 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** `value / unit` printed with as many fraction digits as it needs (none when whole). */
function decimal(value: number, unit: number): string {
  const whole = Math.floor(value / unit);
  const fraction = value - whole * unit;
  if (fraction === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(fraction).padStart(digits, '0').replace(/0+$/, '')}`;
}

/**
 * JSON as nats-server writes it: two-space indentation (or compact), with `<`, `>` and `&`
 * escaped as Go's encoder does (`foo.>` is sent as `foo.\u003e`), and each byte of invalid UTF-8
 * in a subject (a lone surrogate U+DC80-U+DCFF after `decodeSubject`, which JSON.stringify
 * writes as `\udcXX`) as `\ufffd`, as Go writes invalid bytes. A bigint is written as the number
 * it is, every digit kept.
 */
export function goJson(value: unknown, pretty = true): string {
  // Escape sequences are matched whole, so the `\\` of a backslash is never read as the start
  // of a `\udcXX`.
  return JSON.stringify(value, writeBigInt, pretty ? 2 : undefined)
    .replace(/\\udc[89a-f][0-9a-f]|\\.|[<>&\u2028\u2029]/g, (match) => {
      if (match.length === 1) return `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`;
      return match.length === 2 ? match : '\\ufffd';
    })
    .replace(BIG_INT_STRING, '$1');
}

/**
 * A bigint (a uint64 beyond 2^53, which a number would round) goes through JSON.stringify as a
 * string carrying a random mark, which the output then loses with its quotes: no string of
 * the document itself can carry a mark it cannot know.
 */
const BIG_INT_MARK = randomUUID();
const BIG_INT_STRING = new RegExp(`"${BIG_INT_MARK}(-?\\d+)"`, 'g');

function writeBigInt(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${BIG_INT_MARK}${value}` : value;
}
