/**
 * Message counters (nats-server 2.12, ADR-49): on a stream with `allow_msg_counter`, a publish
 * carries no payload but a `Nats-Incr` header, an integer of any size ("+5", "-1"), and the
 * stream stores the subject's new total as `{"val":"<total>"}`. A counter sourced from other
 * streams adds what each origin's total moved by since the last copy, remembering each origin's
 * last total in `Nats-Counter-Sources`. The rules are processJetStreamMsg's (v2.12.1
 * stream.go:5465-5530 for the checks on arrival, :5752-5862 for the arithmetic).
 */
import { type JsErrorEntry, jsErrors } from '@slipstream/jsapi';
import { headerValue, withHeaders } from '../shared/header-block.js';
import type { StoredMessage } from '../store/message-store.js';

export const INCR_HEADER = 'Nats-Incr';
export const COUNTER_SOURCES_HEADER = 'Nats-Counter-Sources';
const SOURCE_HEADER = 'Nats-Stream-Source';

/** Headers whose promise (a rollup, an expected state) an increment cannot keep. */
const INCOMPATIBLE_HEADERS = [
  'Nats-Rollup',
  'Nats-Expected-Stream',
  'Nats-Expected-Last-Msg-Id',
  'Nats-Expected-Last-Subject-Sequence-Subject',
  'Nats-Expected-Last-Sequence',
  'Nats-Expected-Last-Subject-Sequence',
];

/** Each origin stream's last seen total, by origin subject: `{"stream":{"subject":"123"}}`. */
type CounterSources = Record<string, Record<string, string>>;

/** A decimal integer as Go's big.Int SetString(s, 10) reads it: an optional sign, then digits. */
export function parseIncrement(text: string): bigint | undefined {
  return /^[+-]?\d+$/.test(text) ? BigInt(text) : undefined;
}

/** The increment a message carries: undefined without one, 'invalid' when unreadable. */
function incrementOf(headers: Uint8Array | undefined): bigint | 'invalid' | undefined {
  const text = headers && headers.length > 0 ? headerValue(headers, INCR_HEADER) : undefined;
  if (!text) return undefined;
  return parseIncrement(text) ?? 'invalid';
}

/**
 * The refusal of a message's `Nats-Incr` on arrival, before the stream's other checks: an
 * unreadable increment; on a message published here (a sourced one is stored as it comes),
 * an increment on a stream without counters, with a payload, or beside a header it conflicts with.
 */
export function refuseIncrement(
  headers: Uint8Array | undefined,
  payload: Uint8Array,
  sourced: boolean,
  countersAllowed: boolean,
): JsErrorEntry | undefined {
  const increment = incrementOf(headers);
  if (increment === 'invalid') return jsErrors.JSMessageIncrInvalidErr;
  if (increment === undefined || sourced) return undefined;
  if (!countersAllowed) return jsErrors.JSMessageIncrDisabledErr;
  if (payload.length > 0) return jsErrors.JSMessageIncrPayloadErr;
  const conflicting = INCOMPATIBLE_HEADERS.some((name) => headerValue(headers!, name));
  return conflicting ? jsErrors.JSMessageIncrInvalidErr : undefined;
}

/** A counter message ready to store, and the total its PubAck reports. */
export interface CountedMessage {
  readonly headers: Uint8Array | undefined;
  readonly payload: Uint8Array;
  readonly total: string;
}

/**
 * The message a counter stream stores for an arrival: the subject's previous total (its last
 * message) plus the increment, or, for a message copied from a source, plus what that origin's
 * total moved by since its last copy (the stored `Nats-Incr` then says that difference).
 * Returns the error to answer when the arrival has no increment, a stored counter is broken or
 * the message would outgrow the server's max payload (v2.12.1 stream.go:5865-5877).
 */
export function countMessage(
  headers: Uint8Array | undefined,
  payload: Uint8Array,
  /** The subject's last stored message, if any. */
  previous: StoredMessage | undefined,
  /** The subject the message had in its origin stream, when it was copied from a source. */
  originSubject: string | undefined,
  /** The server's max payload: the message with its new total must fit in it. */
  maxPayload = Number.POSITIVE_INFINITY,
): CountedMessage | JsErrorEntry {
  let increment = incrementOf(headers);
  if (increment === undefined) return jsErrors.JSMessageIncrMissingErr;
  if (increment === 'invalid') return jsErrors.JSMessageIncrInvalidErr;
  let total = 0n;
  let sources: CounterSources | undefined;
  if (previous) {
    const value = counterValue(previous.payload);
    if (value === undefined) return jsErrors.JSMessageCounterBrokenErr;
    const recorded = previous.headers && headerValue(previous.headers, COUNTER_SOURCES_HEADER);
    if (recorded) {
      sources = parseSources(recorded);
      if (!sources) return jsErrors.JSMessageCounterBrokenErr;
    }
    total = parseIncrement(value) ?? 0n;
  }
  let stored = headers;
  const source = headers && headerValue(headers, SOURCE_HEADER);
  if (source) {
    // A copy from a source: its payload is the origin's total; count what that total moved by.
    const fields = source.split(' ');
    const origin = fields[0]!;
    const subject = fields[4] ?? originSubject ?? '';
    const value = counterValue(payload);
    if (value === undefined) return jsErrors.JSMessageCounterBrokenErr;
    const originTotal = parseIncrement(value) ?? 0n;
    sources ??= {};
    sources[origin] ??= {};
    const before = parseIncrement(sources[origin][subject] ?? '') ?? 0n;
    sources[origin][subject] = originTotal.toString();
    increment = originTotal - before;
    stored = withHeaderValue(stored, INCR_HEADER, increment.toString());
  }
  total += increment;
  if (sources && Object.keys(sources).length > 0) {
    stored = withHeaderValue(stored, COUNTER_SOURCES_HEADER, goSourcesJson(sources));
  }
  const text = total.toString();
  const counted = Buffer.from(`{"val":"${text}"}`);
  if ((stored?.length ?? 0) + counted.length > maxPayload) {
    return jsErrors.JSStreamMessageExceedsMaximumErr;
  }
  return { headers: stored, payload: counted, total: text };
}

/** The PubAck members after the sequence for a counter's new total. */
export function totalAckFields(total: string): string {
  return `,"val":"${total}"`;
}

/**
 * The `val` of a stored counter as Go's json.Unmarshal into `{Value string "json:val"}` reads it:
 * any JSON object (or null) whose `val`, if present, is a string; undefined when Go would fail.
 */
function counterValue(payload: Uint8Array): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null) return '';
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const value = (parsed as { val?: unknown }).val;
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : undefined;
}

function parseSources(text: string): CounterSources | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const sources: CounterSources = {};
  for (const [origin, subjects] of Object.entries(parsed as Record<string, unknown>)) {
    if (subjects === null) continue;
    if (typeof subjects !== 'object' || Array.isArray(subjects)) return undefined;
    const totals: Record<string, string> = {};
    for (const [subject, total] of Object.entries(subjects as Record<string, unknown>)) {
      if (typeof total !== 'string') return undefined;
      totals[subject] = total;
    }
    sources[origin] = totals;
  }
  return sources;
}

/** The sources as Go's json.Marshal writes a map: keys sorted, `<`, `>` and `&` escaped. */
function goSourcesJson(sources: CounterSources): string {
  const object = (record: Record<string, string | Record<string, string>>): string =>
    `{${Object.keys(record)
      .sort()
      .map((key) => {
        const value = record[key]!;
        return `${goString(key)}:${typeof value === 'string' ? goString(value) : object(value)}`;
      })
      .join(',')}}`;
  return object(sources);
}

function goString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The block with header `name` set to `value`: in place when present (as Go's setHeader), else added. */
function withHeaderValue(block: Uint8Array | undefined, name: string, value: string): Buffer {
  if (block && block.length > 0 && headerValue(block, name) !== undefined) {
    const lines = Buffer.from(block).toString('latin1').split('\r\n');
    const at = lines.findIndex((line, i) => i > 0 && line.startsWith(`${name}:`));
    lines[at] = `${name}: ${value}`;
    return Buffer.from(lines.join('\r\n'), 'latin1');
  }
  return withHeaders(block, [[name, value]]);
}
