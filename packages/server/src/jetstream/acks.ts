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

/** The delivered / stream seq / consumer seq tokens, the 5th, 4th and 3rd from the end. */
export function ackedDelivery(subject: string): AckedDelivery {
  const ends: number[] = [];
  for (let i = subject.length, found = 0; found < 5; found++) {
    i = subject.lastIndexOf('.', i - 1);
    if (i < 0) return NOTHING;
    ends.push(i);
  }
  // ends[k] is the dot before the (k+1)-th token from the end.
  const token = (k: number) => subject.slice(ends[k]! + 1, k === 0 ? undefined : ends[k - 1]);
  const delivered = counter(token(4));
  const streamSeq = counter(token(3));
  const consumerSeq = counter(token(2));
  if (delivered < 0 || streamSeq < 0 || consumerSeq < 0) return NOTHING;
  return { delivered, streamSeq, consumerSeq };
}

function counter(token: string): number {
  return /^\d+$/.test(token) ? Number(token) : -1;
}

/** The ack's verb; a body nats-server does not recognise is undefined (it does nothing). */
export function ackVerb(payload: Uint8Array): AckBody | undefined {
  return parseAckBody(payload.length === 0 ? '' : decodeUtf8(payload).trim());
}
