/**
 * Reading one stored message by sequence, last by subject or next by subject: the one rule
 * behind STREAM.MSG.GET (a JSON answer through the API) and DIRECT.GET (the message itself,
 * answered by the stream, with status-only replies when it cannot).
 */

import { decodeJson, msgGetRequestSchema } from '@slipstream/jsapi';
import { statusBlock, withHeaders } from './header-block.js';
import type { StoredMessage } from './store/message-store.js';
import type { Stream } from './stream.js';
import { wireTime } from './wire-time.js';

export interface MessageQuery {
  seq?: number;
  last_by_subj?: string;
  next_by_subj?: string;
}

/** Why nats-server refuses a query: nothing asked, or two ways asked at once. */
export function queryProblem(query: MessageQuery): 'empty' | 'conflict' | undefined {
  const seq = query.seq ?? 0;
  if (seq === 0 && !query.last_by_subj && !query.next_by_subj) return 'empty';
  if (seq > 0 && query.last_by_subj) return 'conflict';
  if (query.last_by_subj && query.next_by_subj) return 'conflict';
  return undefined;
}

/** The message a valid query names, or undefined when there is none. */
export function findMessage(stream: Stream, query: MessageQuery): StoredMessage | undefined {
  const seq = query.seq ?? 0;
  if (query.next_by_subj) return stream.store.loadNext(query.next_by_subj, seq);
  if (seq > 0) return stream.load(seq);
  return stream.store.loadLast(query.last_by_subj!);
}

/** The reply to a direct get: the message with headers saying where it came from, or a status. */
export function directGetReply(
  stream: Stream,
  body: Uint8Array,
  lastBySubject: string | undefined,
): { headers: Uint8Array; payload: Uint8Array } {
  let query: MessageQuery;
  if (lastBySubject !== undefined) {
    if (body.length > 0 || lastBySubject === '') return status(408, 'Bad Request');
    query = { last_by_subj: lastBySubject };
  } else {
    if (body.length === 0) return status(408, 'Empty Request');
    // Decoded with the schema: a field of the wrong type is malformed, as Go's decoder finds.
    const decoded = decodeJson(msgGetRequestSchema, body);
    if (!decoded.ok) return status(408, 'Malformed Request');
    query = decoded.value ?? {};
    const problem = queryProblem(query);
    if (problem) return status(408, problem === 'empty' ? 'Empty Request' : 'Bad Request');
  }
  let message: StoredMessage | undefined;
  try {
    message = findMessage(stream, query);
  } catch {
    message = undefined;
  }
  if (!message) return status(404, 'Message Not Found');
  return {
    headers: withHeaders(message.headers, [
      ['Nats-Stream', stream.name],
      ['Nats-Subject', message.subject],
      ['Nats-Sequence', String(message.seq)],
      ['Nats-Time-Stamp', wireTime(message.time)],
    ]),
    payload: message.payload,
  };
}

function status(code: number, description: string) {
  return { headers: statusBlock(code, description), payload: new Uint8Array(0) };
}

/** The message of STREAM.MSG.GET's answer (`hdrs` and `data` in base64). */
export function wireStoredMessage(message: StoredMessage) {
  return {
    subject: message.subject,
    seq: message.seq,
    ...(message.headers?.length ? { hdrs: base64(message.headers) } : {}),
    ...(message.payload.length ? { data: base64(message.payload) } : {}),
    time: wireTime(message.time),
  };
}

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
