import { decodeJson, describeIssues, pubAckSchema, responseError } from '@slipstream/jsapi';
import { fromApiError, JetStreamError } from './errors.js';

/** The stream's answer to a stored publish. */
export interface PubAck {
  stream: string;
  seq: number;
  /** True when the Nats-Msg-Id was seen within the duplicate window: nothing new was stored. */
  duplicate: boolean;
  domain?: string;
}

/** Reads a PubAck with the jsapi schema; a failed publish (`error` set) is thrown. */
export function decodePubAck(data: Uint8Array): PubAck {
  const decoded = decodeJson(pubAckSchema, data);
  if (!decoded.ok) {
    throw new JetStreamError(`invalid PubAck: ${describeIssues(decoded.issues)}`, {
      cause: decoded.error,
    });
  }
  const error = responseError(decoded.value);
  if (error) throw fromApiError(error);
  const { stream, seq, duplicate, domain } = decoded.value;
  if (!stream || seq === undefined) throw new JetStreamError('invalid PubAck: no stream or seq');
  const ack: PubAck = { stream, seq, duplicate: duplicate ?? false };
  if (domain !== undefined) ack.domain = domain;
  return ack;
}
