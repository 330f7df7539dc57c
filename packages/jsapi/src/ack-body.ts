import { type PullRequest, parsePullRequestBody } from './pull-request.js';

/**
 * The bodies a client publishes to a `$JS.ACK` subject, as nats-server reads them:
 * empty, `+ACK` or `+OK` acknowledge; `-NAK` asks for redelivery, optionally after a delay
 * (`-NAK {"delay":<ns>}` or `-NAK <Go duration>`); `+WPI` says work is in progress (resets the
 * ack timer); `+NXT` acknowledges and pulls more (optionally with a pull request body);
 * `+TERM` stops redelivery, optionally with a reason.
 */
export type AckBody =
  | { kind: 'ack' }
  | { kind: 'nak'; delayNanos?: number }
  | { kind: 'progress' }
  | { kind: 'next'; request?: PullRequest }
  | { kind: 'term'; reason?: string };

const NANOS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Parses a Go duration (`1.5s`, `2m30s`, `-100ms`, `0`) into nanoseconds; undefined if bad. */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(text);
  if (!m) return undefined;
  if (m[2] === '0') return 0;
  let total = 0;
  for (const [, value, unit] of m[2]!.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(value) * NANOS_PER_UNIT[unit!]!;
  }
  return Math.round(m[1] === '-' ? -total : total);
}

/** Reads an ack body; undefined for a body the server ignores. */
export function parseAckBody(body: string): AckBody | undefined {
  if (body === '' || body === '+ACK' || body === '+OK') return { kind: 'ack' };
  if (body === '+WPI') return { kind: 'progress' };
  const [verb, rest] = splitVerb(body);
  switch (verb) {
    case '-NAK':
      return rest === undefined ? { kind: 'nak' } : nakWithDelay(rest);
    case '+NXT': {
      if (rest === undefined) return { kind: 'next' };
      const request = parsePullRequestBody(rest);
      return request ? { kind: 'next', request } : undefined;
    }
    case '+TERM':
      return rest === undefined ? { kind: 'term' } : { kind: 'term', reason: rest };
    default:
      return undefined;
  }
}

/** Writes an ack body; a NAK delay is written as JSON nanoseconds. */
export function formatAckBody(ack: AckBody): string {
  switch (ack.kind) {
    case 'ack':
      return '+ACK';
    case 'progress':
      return '+WPI';
    case 'nak':
      return ack.delayNanos === undefined
        ? '-NAK'
        : `-NAK ${JSON.stringify({ delay: ack.delayNanos })}`;
    case 'next':
      return ack.request ? `+NXT ${JSON.stringify(ack.request)}` : '+NXT';
    case 'term':
      return ack.reason ? `+TERM ${ack.reason}` : '+TERM';
  }
}

function splitVerb(body: string): [string, string | undefined] {
  const space = body.indexOf(' ');
  if (space < 0) return [body, undefined];
  const rest = body.slice(space + 1).trim();
  return [body.slice(0, space), rest === '' ? undefined : rest];
}

function nakWithDelay(rest: string): AckBody | undefined {
  if (rest.startsWith('{')) {
    try {
      const { delay } = JSON.parse(rest) as { delay?: unknown };
      if (delay === undefined) return { kind: 'nak' };
      return Number.isInteger(delay) ? { kind: 'nak', delayNanos: delay as number } : undefined;
    } catch {
      return undefined;
    }
  }
  const delayNanos = parseGoDuration(rest);
  return delayNanos === undefined ? undefined : { kind: 'nak', delayNanos };
}
