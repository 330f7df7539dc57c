/**
 * Reading an ack: the three counters a consumer needs from its `$JS.ACK.<stream>.<consumer>.
 * <delivered>.<stream seq>.<consumer seq>.<timestamp>.<pending>` subject, found by position
 * from the end without splitting the subject, and the body's verb (jsapi's parseAckBody).
 * A malformed subject reads as zeros, which match nothing pending, as in nats-server.
 */
import { type AckBody, parseAckBody } from '@slipstream/jsapi';
import { decodeUtf8 } from '@slipstream/protocol';

export interface AckedDelivery {
  /** How many times the message had been delivered. */
  delivered: number;
  streamSeq: number;
  consumerSeq: number;
}

const NOTHING: AckedDelivery = { delivered: 0, streamSeq: 0, consumerSeq: 0 };

const DOT = 46;
const ZERO = 48;
const NINE = 57;

/**
 * The delivered / stream seq / consumer seq tokens, the 5th, 4th and 3rd from the end, read
 * character by character: this runs for every ack, and String.lastIndexOf, slices and a regular
 * expression per token cost more than the rest of the ack.
 */
export function ackedDelivery(subject: string): AckedDelivery {
  // after the pending count and the timestamp
  let end = dotBefore(subject, dotBefore(subject, subject.length));
  const consumerStart = dotBefore(subject, end);
  const consumerSeq = counter(subject, consumerStart + 1, end);
  end = consumerStart;
  const streamStart = dotBefore(subject, end);
  const streamSeq = counter(subject, streamStart + 1, end);
  const delivered = counter(subject, dotBefore(subject, streamStart) + 1, streamStart);
  if (delivered < 0 || streamSeq < 0 || consumerSeq < 0) return NOTHING;
  return { delivered, streamSeq, consumerSeq };
}

/** Where the last dot before `end` is; -1 when none (or `end` is already -1). */
function dotBefore(subject: string, end: number): number {
  for (let i = end - 1; i >= 0; i--) if (subject.charCodeAt(i) === DOT) return i;
  return -1;
}

/** The decimal number in subject[from, to); -1 when empty, not all digits, or not after a dot. */
function counter(subject: string, from: number, to: number): number {
  if (from <= 0 || to <= from) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = subject.charCodeAt(i);
    if (c < ZERO || c > NINE) return -1;
    value = value * 10 + (c - ZERO);
  }
  return value;
}

const ACK: AckBody = { kind: 'ack' };
const PLUS_ACK = [43, 65, 67, 75];

/**
 * The ack's verb; a body nats-server does not recognise is undefined (it does nothing). The
 * plain `+ACK` that nearly every ack carries is told from its bytes, without decoding them.
 */
export function ackVerb(payload: Uint8Array): AckBody | undefined {
  if (payload.length === PLUS_ACK.length && PLUS_ACK.every((byte, i) => payload[i] === byte)) {
    return ACK;
  }
  return parseAckBody(payload.length === 0 ? '' : decodeUtf8(payload).trim());
}
