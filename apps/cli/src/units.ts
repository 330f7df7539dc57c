import { UsageError } from './usage-error.js';

// Durations and sizes as people type them on the command line ("1h30m", "500ms", "1GB").

const durationUnits: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/** Milliseconds in a Go-style duration such as `1h30m`, `250ms` or `2d`; a bare number is seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w|y)/gy;
  let total = 0;
  let end = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * durationUnits[match[2] as string];
    end = part.lastIndex;
  }
  if (end === 0 || end !== trimmed.length) {
    throw new UsageError(`invalid duration "${text}" (examples: 500ms, 10s, 1h30m, 7d)`);
  }
  return total;
}

const sizeUnits: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

/** Bytes in a size such as `512`, `10KB`, `1.5GiB` or `-1` (unlimited); units are powers of 1024. */
export function parseSize(text: string): number {
  if (text.trim() === '-1') return -1;
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (!match) throw new UsageError(`invalid size "${text}" (examples: 512, 10KB, 1GB, -1)`);
  return Math.round(Number(match[1]) * sizeUnits[(match[2] as string).toLowerCase()]);
}

/** A whole number typed on the command line; `-1` (unlimited) is allowed where `min` is -1. */
export function parseInteger(text: string, min = 0): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`invalid number "${text}" (a whole number of at least ${min})`);
  }
  return value;
}

/** `1.5 KiB`, `12 MiB`: bytes for a person. */
export function formatBytes(bytes: number): string {
  if (bytes < 0) return 'unlimited';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** `250µs`, `12.3ms`, `1m30s`, `2d4h`: a duration in milliseconds for a person. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 1000) return `${Number(ms.toFixed(2))}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(2))}s`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, seconds] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= seconds) {
      parts.push(`${Math.floor(rest / seconds)}${unit}`);
      rest %= seconds;
    }
  }
  return parts.join('');
}

/** `1,234,567`: a count for a person; -1 is a limit that is not set. */
export function formatCount(n: number): string {
  return n < 0 ? 'unlimited' : n.toLocaleString('en-US');
}

/** `2026-12-01 06:53:13`: an RFC 3339 time from the server, to the second, for a table. */
export function formatTimestamp(rfc3339: string): string {
  return rfc3339.slice(0, 19).replace('T', ' ');
}

/**
 * A moment given as a time ("2026-12-24 18:00:00", UTC unless it names a zone, as the nats CLI
 * reads it) or as a duration from now ("1h30m").
 */
export function parseTimeOrDuration(text: string): Date {
  if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(text)) {
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text);
    const time = new Date(`${text.replace(' ', 'T')}${hasZone ? '' : 'Z'}`);
    if (Number.isNaN(time.getTime())) throw new UsageError(`invalid time "${text}"`);
    return time;
  }
  try {
    return new Date(Date.now() + parseDuration(text));
  } catch {
    throw new UsageError(
      `could not read "${text}" as a time (2026-12-24 18:00:00) or a duration (1h30m)`,
    );
  }
}
