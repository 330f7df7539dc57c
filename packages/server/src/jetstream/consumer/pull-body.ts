/**
 * Reading a MSG.NEXT (or +NXT) body as nats-server's nextReqFromMsg does: after trimming
 * white space, empty is one message, a decimal integer is a batch size, `{...}` is a request
 * decoded as json.Unmarshal decodes it into JSApiConsumerGetNextRequest (so a malformed one is
 * refused with Go's own words), anything else is one message.
 */
import { decodeGoStruct, type GoStruct, isInt64 } from './go-json-decode.js';
import type { PullPriority } from './priority-groups.js';
import type { StatusReply } from './status-message.js';

export type ParsedPull =
  | {
      ok: true;
      batch: number;
      /** Milliseconds since the epoch; 0 never. */
      expires: number;
      maxBytes: number;
      noWait: boolean;
      /** Milliseconds; 0 none. */
      heartbeat: number;
      priority: PullPriority | undefined;
    }
  | { ok: false; status: StatusReply };

/** The request's fields with their Go types (2.12, whose priority group fields we serve). */
const NEXT_REQUEST: GoStruct = {
  name: 'JSApiConsumerGetNextRequest',
  fields: {
    expires: 'time.Duration',
    batch: 'int',
    max_bytes: 'int',
    no_wait: 'bool',
    idle_heartbeat: 'time.Duration',
    group: 'string',
    min_pending: 'int64',
    min_ack_pending: 'int64',
    id: 'string',
    priority: 'int',
  },
};

const NANOS_PER_MS = 1_000_000;

export function parsePullBody(body: Uint8Array, now: number): ParsedPull {
  const trimmed = trimGoSpace(body);
  if (trimmed[0] === 0x7b /* { */) return parseRequest(trimmed, now);
  const text = Buffer.from(trimmed).toString('latin1');
  return {
    ok: true,
    batch: isInt64(text) ? Number(text) : 1,
    expires: 0,
    maxBytes: 0,
    noWait: false,
    heartbeat: 0,
    priority: undefined,
  };
}

function parseRequest(body: Uint8Array, now: number): ParsedPull {
  const decoded = decodeGoStruct(body, NEXT_REQUEST);
  if (!decoded.ok) return badRequest(decoded.error);
  const field = <T>(name: string, zero: T) => (decoded.fields[name] as T | undefined) ?? zero;
  const expiresNanos = field('expires', 0);
  const heartbeatNanos = field('idle_heartbeat', 0);
  if (heartbeatNanos > 0 && heartbeatNanos * 2 > expiresNanos) {
    return badRequest('heartbeat value too large');
  }
  return {
    ok: true,
    batch: field('batch', 0),
    // Any expires but zero is a deadline, a negative one already passed.
    expires: expiresNanos === 0 ? 0 : now + expiresNanos / NANOS_PER_MS,
    maxBytes: field('max_bytes', 0),
    noWait: field('no_wait', false),
    heartbeat: heartbeatNanos / NANOS_PER_MS,
    priority: {
      group: field('group', ''),
      minPending: field('min_pending', 0),
      minAckPending: field('min_ack_pending', 0),
      id: field('id', ''),
      priority: field('priority', 0),
    },
  };
}

function badRequest(reason: string): ParsedPull {
  return { ok: false, status: { code: 400, description: `Bad Request - ${reason}` } };
}

/**
 * Go's bytes.TrimSpace: ASCII white space and the UTF-8 of Unicode's other white space
 * (U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
 */
function trimGoSpace(body: Uint8Array): Uint8Array {
  let start = 0;
  let end = body.length;
  for (let size = spaceAt(body, start); size > 0; size = spaceAt(body, start)) start += size;
  for (;;) {
    const size = spaceEndingAt(body, start, end);
    if (size === 0) return body.subarray(start, end);
    end -= size;
  }
}

/** The byte length of the white space starting at `at`, 0 if none. */
function spaceAt(body: Uint8Array, at: number): number {
  for (let size = 1; size <= 3 && at + size <= body.length; size++) {
    if (isGoSpace(body.subarray(at, at + size))) return size;
  }
  return 0;
}

/** The byte length of the white space ending at `end` (not before `start`), 0 if none. */
function spaceEndingAt(body: Uint8Array, start: number, end: number): number {
  for (let size = 1; size <= 3 && end - size >= start; size++) {
    if (isGoSpace(body.subarray(end - size, end))) return size;
  }
  return 0;
}

function isGoSpace(bytes: Uint8Array): boolean {
  const [a, b, c] = bytes;
  switch (bytes.length) {
    case 1:
      return a === 0x20 || (a! >= 0x09 && a! <= 0x0d);
    case 2:
      return a === 0xc2 && (b === 0x85 || b === 0xa0);
    default:
      return (
        (a === 0xe1 && b === 0x9a && c === 0x80) ||
        (a === 0xe2 &&
          b === 0x80 &&
          ((c! >= 0x80 && c! <= 0x8a) || c === 0xa8 || c === 0xa9 || c === 0xaf)) ||
        (a === 0xe2 && b === 0x81 && c === 0x9f) ||
        (a === 0xe3 && b === 0x80 && c === 0x80)
      );
  }
}
