/** Numbers and payloads as the page shows them. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(value: number): string {
  let scaled = value;
  let unit = 0;
  while (Math.abs(scaled) >= 1024 && unit < UNITS.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${unit === 0 ? scaled : scaled.toFixed(1)} ${UNITS[unit]}`;
}

export function count(value: number | undefined): string {
  return value === undefined ? '' : value.toLocaleString('en-US');
}

export function rate(perSecond: number): string {
  return `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond).toLocaleString('en-US')}/s`;
}

/** A Go duration in nanoseconds, or milliseconds, as "1h2m3s". */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  let seconds = Math.floor(ms / 1_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join('');
}

export function nanos(ns: number | undefined): string {
  return !ns ? 'unlimited' : duration(ns / 1e6);
}

export function limit(value: number | undefined, format: (n: number) => string = count): string {
  return value === undefined || value < 0 ? 'unlimited' : format(value);
}

export function time(text: string | undefined): string {
  if (!text) return '';
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString().replace('T', ' ').slice(0, 23);
}

export function base64Bytes(text: string | undefined): Uint8Array {
  if (!text) return new Uint8Array();
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function utf8(data: Uint8Array): string {
  return new TextDecoder().decode(data);
}

export type PayloadView = 'text' | 'json' | 'hex';

/** A payload as text, indented JSON (or why it is not JSON), or a hex dump with offsets. */
export function payloadText(data: Uint8Array, view: PayloadView): string {
  if (view === 'text') return utf8(data);
  if (view === 'json') {
    try {
      return JSON.stringify(JSON.parse(utf8(data)), null, 2);
    } catch (error) {
      return `not JSON: ${(error as Error).message}`;
    }
  }
  const lines: string[] = [];
  for (let offset = 0; offset < data.length; offset += 16) {
    const row = data.subarray(offset, offset + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row]
      .map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'))
      .join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

/** The header block of a stored message (`NATS/1.0` then `Name: value` lines) as pairs. */
export function headerPairs(block: Uint8Array): [string, string][] {
  const lines = utf8(block).split('\r\n').slice(1);
  return lines
    .filter((line) => line.includes(':'))
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
}
