/**
 * When a message schedule fires (nats-server's parseMsgSchedule, v2.14.2 server/scheduler.go
 * :309-376, and loadMessageScheduleLocation, stream.go:5438-5454): `@at <RFC 3339 time>` once
 * (2.12); `@every <Go duration>` (at least a second) and cron (six fields, or `@yearly`,
 * `@monthly`, `@weekly`, `@daily`, `@hourly`...) repeatedly (2.14), cron in the IANA zone of
 * `Nats-Schedule-Time-Zone`, which `@at` and `@every` refuse. A repeating schedule that would
 * have fired several times while nobody ran it (a restart) fires once, then keeps its rhythm.
 */
import { parseGoDuration } from '@slipstream/jsapi';
import { isKnownTimeZone, nextCronTime, parseCron, zoneOffsetMinutes } from './cron.js';

/** The next firing: milliseconds since the epoch, and whether the schedule repeats after it. */
export interface Firing {
  readonly at: number;
  readonly repeats: boolean;
}

const PREDEFINED: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

/**
 * The time zone a schedule names: undefined without the header; 'invalid' when the header is
 * empty or names no zone Intl knows.
 */
export function scheduleZone(value: string | undefined): string | undefined | 'invalid' {
  if (value === undefined) return undefined;
  return value !== '' && isKnownTimeZone(value) ? value : 'invalid';
}

/**
 * The firing of `pattern` after `fromMs` (the schedule's time, or its last firing), as of `nowMs`;
 * null for no pattern, undefined for one nats-server refuses.
 */
export function nextFiring(
  pattern: string,
  zone: string | undefined,
  fromMs: number,
  nowMs: number,
): Firing | null | undefined {
  if (pattern === '') return null;
  if (pattern.startsWith('@at ')) {
    if (zone !== undefined) return undefined;
    const at = parseRfc3339(pattern.slice(4));
    return at === undefined ? undefined : { at, repeats: false };
  }
  if (pattern.startsWith('@every ')) {
    if (zone !== undefined) return undefined;
    const nanos = parseGoDuration(pattern.slice(7));
    if (nanos === undefined || nanos < 1_000_000_000) return undefined;
    const every = nanos / 1_000_000;
    let at = roundToSecond(fromMs) + every;
    if (at < nowMs) at = roundToSecond(nowMs) + every;
    return { at, repeats: true };
  }
  const cron = parseCron(PREDEFINED[pattern] ?? pattern);
  if (!cron) return undefined;
  let at = nextCronTime(cron, fromMs, zone);
  if (at !== undefined && at < nowMs) at = nextCronTime(cron, roundToSecond(nowMs), zone);
  return at === undefined ? undefined : { at, repeats: true };
}

/** Go's Time.Round(time.Second): halves round up. */
function roundToSecond(ms: number): number {
  return Math.floor((ms + 500) / 1000) * 1000;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of an RFC 3339 time as Go's time.Parse(time.RFC3339) takes it. */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59) return undefined;
  let offset = 0;
  if (m[8]) {
    const hours = Number(m[9]);
    const minutes = Number(m[10]);
    if (hours > 23 || minutes > 59) return undefined;
    offset = (m[8] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const fraction = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  // Date.UTC maps years 0-99 onto 1900-1999; set the year itself.
  const date = new Date(wall);
  date.setUTCFullYear(year!);
  return date.getTime() - offset * 60_000 + Math.floor(fraction);
}

/** `ms` as Go formats time.RFC3339 in `zone`: `Z` at offset zero, else the offset (`+01:00`). */
export function formatRfc3339(ms: number, zone: string | undefined): string {
  const offset = zone ? zoneOffsetMinutes(ms, zone) : 0;
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
