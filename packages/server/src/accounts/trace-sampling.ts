import { canonicalMIMEHeaderKey } from '@slipstream/protocol';

/** Headers as Go's http.Header: canonical names, each with its values. */
export type TraceHeader = Record<string, string[]>;

// The names in Go's canonical form (textproto.CanonicalMIMEHeaderKey), as nats-server holds them.
const UBER = canonicalMIMEHeaderKey('Uber-Trace-Id');
const UBER_CONTEXT = canonicalMIMEHeaderKey('Uberctx-');
const B3 = canonicalMIMEHeaderKey('B3');
const B3_SAMPLED = canonicalMIMEHeaderKey('X-B3-Sampled');
const B3_TRACE_ID = canonicalMIMEHeaderKey('X-B3-TraceId');
/** The B3 headers a report repeats when present (nats-server's newB3Header). */
const B3_SHOWN = [
  B3_SAMPLED,
  B3_TRACE_ID,
  canonicalMIMEHeaderKey('X-B3-ParentSpanId'),
  canonicalMIMEHeaderKey('X-B3-SpanId'),
];
const TRACE_PARENT = canonicalMIMEHeaderKey('Traceparent');
const TRACE_STATE = canonicalMIMEHeaderKey('Tracestate');

/** A `NATS/1.0` header block as Go's textproto reads it into an http.Header. */
function parse(block: Uint8Array): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  const lines = Buffer.from(block.buffer, block.byteOffset, block.length)
    .toString('latin1')
    .split('\r\n')
    .slice(1);
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = canonicalMIMEHeaderKey(line.slice(0, colon).trim());
    const values = headers.get(name) ?? [];
    values.push(line.slice(colon + 1).trim());
    headers.set(name, values);
  }
  return headers;
}

/** The named headers that are present, names in Go's (sorted) JSON order. */
function shown(headers: Map<string, string[]>, names: Iterable<string>): TraceHeader {
  const present = [...new Set(names)].filter((name) => headers.has(name)).sort();
  return Object.fromEntries(present.map((name) => [name, headers.get(name)!]));
}

/**
 * Whether a request's trace headers ask for its latency to be measured, as nats-server's
 * shouldSample reads them when the sampling percentage did not pick it: an Uber-Trace-Id with
 * the sampled flag, B3 (`X-B3-Sampled: 1`, an `X-B3-TraceId`, or a single `B3` not denying it),
 * or a W3C `traceparent` with flags `01`. The trace headers the report then repeats, or
 * undefined when the request is not measured.
 */
export function traceSampled(block: Uint8Array | undefined): TraceHeader | undefined {
  if (!block || block.length === 0) return undefined;
  const headers = parse(block);
  const uber = headers.get(UBER);
  if (uber) {
    // trace-id:span-id:parent-id:flags, flags one or two hex digits whose last has bit 0 set.
    const tokens = uber[0]!.split(':');
    const flags = tokens[3] ?? '';
    const flag = Number.parseInt(flags.at(-1) ?? '', 16);
    if (tokens.length !== 4 || flags.length < 1 || flags.length > 2) return undefined;
    if (Number.isNaN(flag) || (flag & 1) === 0) return undefined;
    const context = [...headers.keys()].filter((name) => name.startsWith(UBER_CONTEXT));
    return shown(headers, [UBER, ...context]);
  }
  const b3Sampled = headers.get(B3_SAMPLED)?.[0];
  if (b3Sampled === '1') return shown(headers, B3_SHOWN);
  if (b3Sampled === '0') return undefined;
  if (headers.has(B3_TRACE_ID)) return shown(headers, B3_SHOWN);
  const b3 = headers.get(B3);
  if (b3) {
    const tokens = b3[0]!.split('-');
    const denied =
      (tokens.length > 2 && tokens[2] === '0') || (tokens.length === 1 && tokens[0] === '0');
    return denied ? undefined : { [B3]: b3 };
  }
  const parent = headers.get(TRACE_PARENT);
  if (parent) {
    const tokens = parent[0]!.split('-');
    return tokens.length === 4 && tokens[3] === '01'
      ? shown(headers, [TRACE_PARENT, TRACE_STATE])
      : undefined;
  }
  return undefined;
}
