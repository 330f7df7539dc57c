import { BlockList, isIP } from 'node:net';

/** A daily connect window of a user JWT (nats-io/jwt v2 `TimeRange`): `HH:MM:SS` wall clock. */
export interface TimeRange {
  start?: string;
  end?: string;
}

const DAY_SECONDS = 24 * 60 * 60;

/**
 * Whether a user JWT's `src` (CIDRs, as a list or one comma-separated string) lets a client from
 * `ip` in, as nats-server's validateSrc: no list lets everyone in; the CIDRs are tried in order
 * and a malformed one refuses the client.
 */
export function sourceAllowed(src: unknown, ip: string): boolean {
  const cidrs = cidrList(src);
  if (cidrs.length === 0) return true;
  // A v4 client on a dual-stack socket shows as ::ffff:a.b.c.d; Go sees a.b.c.d.
  const address = ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const family = isIP(address);
  if (family === 0) return false;
  for (const cidr of cidrs) {
    const subnet = parseCidr(cidr);
    if (!subnet) return false;
    const list = new BlockList();
    list.addSubnet(subnet.address, subnet.prefix, subnet.type);
    if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  }
  return false;
}

/** The CIDRs of a `src` claim, lower-cased and trimmed as nats-io/jwt's CIDRList reads them. */
function cidrList(src: unknown): string[] {
  const items = Array.isArray(src) ? src : typeof src === 'string' ? src.split(',') : [];
  return items
    .filter((item): item is string => typeof item === 'string')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

function parseCidr(
  cidr: string,
): { address: string; prefix: number; type: 'ipv4' | 'ipv6' } | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  if (!match) return undefined;
  const address = match[1]!;
  const prefix = Number(match[2]);
  const family = isIP(address);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  return { address, prefix, type: family === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether a user JWT's `times` let the user in `now`, and for how many more milliseconds, as
 * nats-server 2.9.10's validateTimes: each range is taken on today's date in `location` (an IANA
 * zone; empty: the server's local time), a range whose start is after its end ends tomorrow, and
 * the user is in when a range started before now and ends after it. (A range across midnight thus
 * lets nobody in between midnight and its end, as in nats-server.) No ranges: always in.
 */
export function connectWindow(
  times: unknown,
  location: unknown,
  now = new Date(),
): { allowed: true; remaining?: number } | { allowed: false } {
  if (times === undefined || times === null || (Array.isArray(times) && times.length === 0)) {
    return { allowed: true };
  }
  if (!Array.isArray(times)) return { allowed: false };
  const clock = secondsOfDay(now, typeof location === 'string' ? location : '');
  if (clock === undefined) return { allowed: false };
  for (const range of times as TimeRange[]) {
    const start = parseClock(range?.start);
    let end = parseClock(range?.end);
    if (start === undefined || end === undefined) return { allowed: false };
    if (start > end) end += DAY_SECONDS;
    if (start < clock && end > clock) return { allowed: true, remaining: (end - clock) * 1000 };
  }
  return { allowed: false };
}

/** Go's `15:04:05` layout: an hour of one or two digits, minutes and seconds of two. */
function parseClock(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [hours, minutes, seconds] = [match[1], match[2], match[3]].map(Number) as [
    number,
    number,
    number,
  ];
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return hours * 3600 + minutes * 60 + seconds;
}

/** The wall-clock time of `now` in the zone, in seconds since its midnight; undefined: no such zone. */
function secondsOfDay(now: Date, location: string): number | undefined {
  const fraction = now.getMilliseconds() / 1000;
  if (location === '') {
    return now.getHours() * 3600 + now.getMinutes() * 60 + now.getSeconds() + fraction;
  }
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: location,
      hourCycle: 'h23',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(now);
  } catch {
    return undefined;
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 3600 + part('minute') * 60 + part('second') + fraction;
}
