/**
 * The `$JS.ACK` reply subject every delivered JetStream message carries. Two layouts exist:
 *
 * - v1 (nats-server 2.9.10 and the current default), 9 tokens:
 *   `$JS.ACK.<stream>.<consumer>.<delivered>.<stream_seq>.<consumer_seq>.<timestamp_ns>.<pending>`
 * - v2 (newer servers behind a feature flag), 11 or more tokens:
 *   `$JS.ACK.<domain|_>.<account_hash>.<stream>.<consumer>.<delivered>.<stream_seq>.<consumer_seq>.<timestamp_ns>.<pending>[.<extra>...]`
 */

/** What an ack subject says about the message it belongs to. */
export interface AckSubjectInfo {
  /** v2 only: the JetStream domain, undefined when the subject says `_` (no domain). */
  domain?: string;
  /** v2 only: 8-character hash of the account name. */
  accountHash?: string;
  stream: string;
  consumer: string;
  /** How many times this message has been delivered (1 on first delivery). */
  delivered: number;
  streamSequence: number;
  consumerSequence: number;
  /** Time the message was stored, in nanoseconds since the Unix epoch (exceeds 2^53). */
  timestampNanos: bigint;
  /** Messages left for the consumer after this one. */
  pending: number;
  /** v2 only: tokens after `pending`, kept for forward compatibility. */
  extra?: string[];
}

const ACK_PREFIX = '$JS.ACK';
const V1_TOKENS = 9;
const V2_MIN_TOKENS = 11;

const nonNegative = (token: string) => (/^\d+$/.test(token) ? Number(token) : Number.NaN);

/** Parses either layout; undefined when the subject is not a well-formed ack subject. */
export function parseAckSubject(subject: string): AckSubjectInfo | undefined {
  const tokens = subject.split('.');
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK') return undefined;
  if (tokens.some((t) => t.length === 0)) return undefined;
  let info: AckSubjectInfo | undefined;
  if (tokens.length === V1_TOKENS) {
    info = numbers(tokens.slice(2, 4), tokens.slice(4, 9));
  } else if (tokens.length >= V2_MIN_TOKENS) {
    info = numbers(tokens.slice(4, 6), tokens.slice(6, 11));
    if (info) {
      if (tokens[2] !== '_') info.domain = tokens[2];
      info.accountHash = tokens[3];
      if (tokens.length > V2_MIN_TOKENS) info.extra = tokens.slice(V2_MIN_TOKENS);
    }
  }
  return info;
}

function numbers(names: string[], counters: string[]): AckSubjectInfo | undefined {
  const [delivered, streamSequence, consumerSequence, , pending] = counters.map(nonNegative);
  const timestamp = counters[3]!;
  if ([delivered, streamSequence, consumerSequence, pending].some(Number.isNaN)) return undefined;
  if (!/^\d+$/.test(timestamp)) return undefined;
  return {
    stream: names[0]!,
    consumer: names[1]!,
    delivered: delivered!,
    streamSequence: streamSequence!,
    consumerSequence: consumerSequence!,
    timestampNanos: BigInt(timestamp),
    pending: pending!,
  };
}

/**
 * Formats an ack subject. The v1 layout is used unless `layout: 'v2'` is asked for (or the info
 * has an account hash); v2 writes `_` for a missing domain.
 */
export function formatAckSubject(info: AckSubjectInfo, layout?: 'v1' | 'v2'): string {
  const counters = [
    info.delivered,
    info.streamSequence,
    info.consumerSequence,
    info.timestampNanos,
    info.pending,
  ].join('.');
  const useV2 = layout === 'v2' || (layout === undefined && info.accountHash !== undefined);
  if (!useV2) return `${ACK_PREFIX}.${info.stream}.${info.consumer}.${counters}`;
  const head = `${ACK_PREFIX}.${info.domain ?? '_'}.${info.accountHash ?? '_'}`;
  const extra = info.extra?.length ? `.${info.extra.join('.')}` : '';
  return `${head}.${info.stream}.${info.consumer}.${counters}${extra}`;
}
