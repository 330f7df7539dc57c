import { isValidPublishSubject } from '@slipstream/protocol';

/**
 * What a message's headers ask of message tracing (nats-server 2.11, msgtrace.go): a
 * `Nats-Trace-Dest` header names the subject its trace event goes to, `Nats-Trace-Only: true`
 * has it traced but not delivered; a sampled W3C `traceparent` alone asks for a trace to the
 * account's own trace destination.
 */
export interface TraceRequest {
  /** Every header, names as sent (a traceparent's in lower case), values trimmed: the event's `request.header`. */
  readonly header: Record<string, string[]>;
  /** Asked by a sampled traceparent alone: the account's destination and sampling apply. */
  readonly external: boolean;
  /** `Nats-Trace-Dest`, when it is a valid publish subject. */
  readonly dest: string | undefined;
  /** `Nats-Trace-Only` said 1, true or on (never for an external trace). */
  readonly only: boolean;
  /** The first `Accept-Encoding` value: how the event may be compressed. */
  readonly acceptEncoding: string | undefined;
  /** The header block to route: the one received, or a copy with `traceparent` in lower case, as nats-server rewrites it. */
  readonly headers: Uint8Array;
}

const HEADER_LINE = 'NATS/1.0\r\n';
const TRACE_DEST = 'Nats-Trace-Dest';
const TRACE_ONLY = 'Nats-Trace-Only';
const TRACE_PARENT = 'traceparent';
/** A cheap look before any parsing: most header blocks name neither trace header. */
const MENTIONS_TRACE = /(?:^|\n)(?:nats-trace-dest|traceparent):/i;

/**
 * The trace a header block asks for, or undefined when it asks for none (no trace header, an
 * unsampled traceparent, or an invalid destination without trace-only).
 */
export function traceRequest(block: Uint8Array): TraceRequest | undefined {
  const text = Buffer.from(block.buffer, block.byteOffset, block.length).toString('latin1');
  if (!text.startsWith(HEADER_LINE) || !MENTIONS_TRACE.test(text)) return undefined;
  const header: Record<string, string[]> = {};
  let destFound = false;
  let sampledParent = false;
  let rewritten = text;
  for (let i = HEADER_LINE.length; i < text.length; ) {
    const colon = text.indexOf(':', i);
    if (colon < 0) break;
    const end = text.indexOf('\r\n', colon + 1);
    if (end < 0) break;
    let key = text.slice(i, colon);
    if (key.length > 0) {
      const value = text.slice(colon + 1, end).replace(/^[ \t]+|[ \t]+$/g, '');
      if (key.toLowerCase() === TRACE_PARENT) {
        if (key !== TRACE_PARENT)
          rewritten = rewritten.slice(0, i) + TRACE_PARENT + rewritten.slice(colon);
        key = TRACE_PARENT;
        sampledParent ||= isSampled(value);
      } else if (key.toLowerCase() === TRACE_DEST.toLowerCase()) {
        destFound = true;
      }
      (header[key] ??= []).push(value);
    }
    i = end + 2;
  }
  if (!destFound && !sampledParent) return undefined;
  const external = !destFound;
  const only =
    !external && ['1', 'true', 'on'].includes(header[TRACE_ONLY]?.[0]?.toLowerCase() ?? '');
  const dest = header[TRACE_DEST]?.[0];
  const valid = dest !== undefined && isValidPublishSubject(dest);
  // An invalid destination still stops a trace-only message from being delivered.
  if (!external && !valid && !only) return undefined;
  return {
    header,
    external,
    dest: valid ? dest : undefined,
    only,
    acceptEncoding: header['Accept-Encoding']?.[0],
    headers: rewritten === text ? block : Buffer.from(rewritten, 'latin1'),
  };
}

/** A W3C traceparent (`version-traceid-parentid-flags`) whose flags have the sampled bit. */
function isSampled(value: string): boolean {
  const parts = value.split('-');
  if (parts.length !== 4 || parts[3]!.length !== 2) return false;
  // Read as Go's ParseInt(…, 16, 8): flags above 0x7f do not parse, so they are not sampled.
  const flags = Number.parseInt(parts[3]!, 16);
  return !Number.isNaN(flags) && flags <= 0x7f && (flags & 1) === 1;
}

/**
 * The block with `Nats-Trace-Dest` and `traceparent` renamed (first letter `X`), as nats-server
 * leaves them in a message stored by JetStream or routed on untraced, so that it starts no new
 * trace: undefined stays undefined.
 */
export function withTraceHeadersDisabled(block: Uint8Array | undefined): Uint8Array | undefined {
  if (!block) return block;
  const text = Buffer.from(block.buffer, block.byteOffset, block.length).toString('latin1');
  const disabled = text
    .replace(`\r\n${TRACE_DEST}:`, `\r\nX${TRACE_DEST.slice(1)}:`)
    .replace(`\r\n${TRACE_PARENT}:`, `\r\nX${TRACE_PARENT.slice(1)}:`);
  return disabled === text ? block : Buffer.from(disabled, 'latin1');
}
