/**
 * Reading one stored message by sequence, start time, last by subject or next by subject: the
 * rule behind STREAM.MSG.GET (a JSON answer through the API) and DIRECT.GET (the message
 * itself, answered by the stream; direct-get.ts).
 */

import { parseTimestamp, timestampToEpochNanos } from '@slipstream/jsapi';
import { wireTime } from '../shared/wire-time.js';
import type { MessageStore, StoredMessage } from '../store/message-store.js';

/** A stream as its message gets read it (the stream itself, without importing it). */
export interface StoredStream {
  readonly name: string;
  readonly store: MessageStore;
  /** The message at `seq`, or undefined when there is none. */
  load(seq: number): StoredMessage | undefined;
}

/** The request of both, as nats-server 2.11 reads it (the batch fields only DIRECT.GET uses). */
export interface MessageQuery {
  seq?: number;
  last_by_subj?: string;
  next_by_subj?: string;
  /** RFC 3339: start at the first message stored at or after this time. */
  start_time?: string;
  batch?: number;
  max_bytes?: number;
  multi_last?: string[];
  up_to_seq?: number;
  up_to_time?: string;
  /** 2.12: the message without its headers. */
  no_hdr?: boolean;
}

/** Two ways of choosing the message asked at once, which both requests refuse. */
export function conflictingQuery(query: MessageQuery): boolean {
  const seq = (query.seq ?? 0) > 0;
  const last = !!query.last_by_subj;
  const start = query.start_time !== undefined;
  return (seq && last) || (seq && start) || (start && last) || (last && !!query.next_by_subj);
}

/** True when STREAM.MSG.GET answers the query with a bad request, as nats-server 2.11. */
export function badMsgGetQuery(query: MessageQuery): boolean {
  // Batches are DIRECT.GET's alone.
  if ((query.batch ?? 0) > 0 || (query.max_bytes ?? 0) > 0) return true;
  const asked =
    (query.seq ?? 0) > 0 || !!query.last_by_subj || !!query.next_by_subj || !!query.start_time;
  return !asked || conflictingQuery(query);
}

/** Nanoseconds since the epoch of a request's RFC 3339 time (validated by the schema). */
export function queryTime(text: string): bigint {
  return timestampToEpochNanos(parseTimestamp(text)!);
}

/** The sequence a query starts from: its start time's, else its `seq` (0: none). */
export function startSeq(stream: StoredStream, query: MessageQuery): number {
  if (query.start_time !== undefined) return stream.store.seqFromTime(queryTime(query.start_time));
  return query.seq ?? 0;
}

/** The message a valid single query names, or undefined when there is none. */
export function findMessage(stream: StoredStream, query: MessageQuery): StoredMessage | undefined {
  const seq = startSeq(stream, query);
  if (query.next_by_subj) return stream.store.loadNext(query.next_by_subj, seq);
  if (seq > 0) return stream.load(seq);
  return stream.store.loadLast(query.last_by_subj!);
}

/**
 * The message of STREAM.MSG.GET's answer (`hdrs` and `data` in base64); `no_hdr` (2.12) leaves
 * the headers out (jsMsgGetRequest, v2.12.1 jetstream_api.go:3660).
 */
export function wireStoredMessage(message: StoredMessage, noHeaders = false) {
  return {
    subject: message.subject,
    seq: message.seq,
    ...(message.headers?.length && !noHeaders ? { hdrs: base64(message.headers) } : {}),
    ...(message.payload.length ? { data: base64(message.payload) } : {}),
    time: wireTime(message.time),
  };
}

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
