import {
  decodeJson,
  describeIssues,
  type PubAck as PubAckBody,
  pubAckSchema,
  responseError,
} from '@slipstream/jsapi';
import { fromApiError, JetStreamError } from './errors.js';

/** The stream's answer to a stored publish. */
export interface PubAck {
  stream: string;
  seq: number;
  /** True when the Nats-Msg-Id was seen within the duplicate window: nothing new was stored. */
  duplicate: boolean;
  domain?: string;
  /** A counter stream's new total for the subject (nats-server 2.12; not in nats.js). */
  val?: string;
}

/** Reads a PubAck with the jsapi schema; a failed publish (`error` set) is thrown. */
export function decodePubAck(data: Uint8Array): PubAck {
  return toPubAck(decodePubAckBody(data));
}

/** The PubAck's JSON as jsapi reads it (with a batch's `batch` and `count`); errors thrown. */
export function decodePubAckBody(data: Uint8Array): PubAckBody {
  const decoded = decodeJson(pubAckSchema, data);
  if (!decoded.ok) {
    throw new JetStreamError(`invalid PubAck: ${describeIssues(decoded.issues)}`, {
      cause: decoded.error,
    });
  }
  const error = responseError(decoded.value);
  if (error) throw fromApiError(error);
  return decoded.value;
}

/** The PubAck of a checked body; one without stream or sequence is invalid. */
export function toPubAck({ stream, seq, duplicate, domain, val }: PubAckBody): PubAck {
  if (!stream || seq === undefined) throw new JetStreamError('invalid PubAck: no stream or seq');
  const ack: PubAck = { stream, seq, duplicate: duplicate ?? false };
  if (domain !== undefined) ack.domain = domain;
  if (val !== undefined) ack.val = val;
  return ack;
}
