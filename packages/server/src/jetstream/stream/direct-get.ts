/**
 * DIRECT.GET: the stream answers with the stored message itself (headers saying where it came
 * from), or a status-only reply when it cannot. Since nats-server 2.11 a request may also ask
 * for a batch (`batch`, `max_bytes`, from `seq` or `start_time`, optionally `next_by_subj`) or
 * for the last message of each of several subjects (`multi_last`, bounded by `up_to_seq` or
 * `up_to_time`); those answers carry `Nats-Num-Pending` and `Nats-Last-Sequence` on every
 * message and end with a `204 EOB` status. Since 2.12 `no_hdr` sends a single or batched message
 * as its bare payload (no stored headers, no origin headers), and the last-by-subject form takes a
 * body with the fields that make sense there (`no_hdr`, `max_bytes`).
 */

import { decodeJson, msgGetRequestSchema } from '@slipstream/jsapi';
import { statusBlock, withHeaders } from '../shared/header-block.js';
import { wireTime } from '../shared/wire-time.js';
import type { StoredMessage } from '../store/message-store.js';
import {
  conflictingQuery,
  findMessage,
  type MessageQuery,
  queryTime,
  type StoredStream,
  startSeq,
} from './message-get.js';
import { requiredApiLevelRefused } from './stream-api-level.js';

/** One reply message to the requester. */
export interface DirectGetReply {
  /** undefined for a `no_hdr` message: sent as a plain MSG. */
  headers: Uint8Array | undefined;
  payload: Uint8Array;
}

/**
 * What a batch may send when the request sets no `max_bytes`: nats-server uses its
 * `max_pending`, whose default this is.
 */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** nats-server refuses a `multi_last` that matches more subjects than this. */
const MAX_MULTI_LAST_RESULTS = 1024;

const EMPTY = new Uint8Array(0);

/**
 * The replies to a direct get, in order: `lastBySubject` is the subject named in the request
 * subject (`$JS.API.DIRECT.GET.<stream>.<subject>`), undefined for a request with a JSON body.
 */
export function directGetReplies(
  stream: StoredStream,
  body: Uint8Array,
  lastBySubject: string | undefined,
  requestHeaders?: Uint8Array,
): DirectGetReply[] {
  // v2.12.1 stream.go:4935, 4989
  if (requiredApiLevelRefused(requestHeaders)) return status(412, 'Required Api Level');
  let query: MessageQuery;
  if (lastBySubject !== undefined) {
    // The subject names the message; a body may only shape the answer
    // (processDirectGetLastBySubjectRequest, v2.12.1 stream.go:4995-5034).
    let shaping: MessageQuery = {};
    if (body.length > 0) {
      const decoded = decodeJson(msgGetRequestSchema, body);
      if (!decoded.ok) return status(408, 'Malformed Request');
      shaping = decoded.value ?? {};
    }
    if (lastBySubject === '' || choosesMessage(shaping)) return status(408, 'Bad Request');
    query = { ...shaping, last_by_subj: lastBySubject };
  } else {
    if (body.length === 0) return status(408, 'Empty Request');
    // Decoded with the schema: a field of the wrong type is malformed, as Go's decoder finds.
    const decoded = decodeJson(msgGetRequestSchema, body);
    if (!decoded.ok) return status(408, 'Malformed Request');
    query = decoded.value ?? {};
    if (nothingAsked(query)) return status(408, 'Empty Request');
    if (badDirectQuery(query)) return status(408, 'Bad Request');
  }
  if (query.multi_last?.length) return lastPerSubjectReplies(stream, query);
  if (query.batch) return batchReplies(stream, query);
  const message = quietly(() => findMessage(stream, query));
  if (!message) return status(404, 'Message Not Found');
  const headers = query.no_hdr ? undefined : withHeaders(message.headers, origin(stream, message));
  return [{ headers, payload: message.payload }];
}

/** Fields that choose messages, which the last-by-subject form's body may not have. */
function choosesMessage(query: MessageQuery): boolean {
  return (
    !!query.last_by_subj ||
    !!query.next_by_subj ||
    !!query.multi_last?.length ||
    !!query.seq ||
    !!query.batch ||
    query.start_time !== undefined ||
    !!query.up_to_seq ||
    query.up_to_time !== undefined
  );
}

/** A status-only answer (`NATS/1.0 404 Message Not Found`...). */
function status(code: number, description: string): DirectGetReply[] {
  return [{ headers: statusBlock(code, description), payload: EMPTY }];
}

/** A load whose failure (a damaged message too) answers as if there were no message. */
function quietly(load: () => StoredMessage | undefined): StoredMessage | undefined {
  try {
    return load();
  } catch {
    return undefined;
  }
}

function nothingAsked(query: MessageQuery): boolean {
  return (
    !query.seq &&
    !query.last_by_subj &&
    !query.next_by_subj &&
    !query.multi_last?.length &&
    query.start_time === undefined
  );
}

/** The combinations nats-server 2.11 refuses; a batch of last-by-subject is one of them. */
function badDirectQuery(query: MessageQuery): boolean {
  const last = !!query.last_by_subj;
  const multi = !!query.multi_last?.length;
  return (
    conflictingQuery(query) ||
    (last && (query.batch ?? 0) > 0) ||
    (last && multi) ||
    (!!query.next_by_subj && multi) ||
    ((query.up_to_seq ?? 0) > 0 && query.up_to_time !== undefined)
  );
}

/** Headers naming where a message came from, as every direct get answer has them. */
function origin(stream: StoredStream, message: StoredMessage): Array<[string, string]> {
  return [
    ['Nats-Stream', stream.name],
    ['Nats-Subject', message.subject],
    ['Nats-Sequence', String(message.seq)],
    ['Nats-Time-Stamp', wireTime(message.time)],
  ];
}

/**
 * A message of a batch: its origin, how many matching messages are left from it on (counting
 * it) and the sequence of the one sent before it (0 for the first).
 */
function inBatch(
  stream: StoredStream,
  message: StoredMessage,
  pending: number,
  previous: number,
): DirectGetReply {
  const headers = withHeaders(message.headers, [
    ...origin(stream, message),
    ['Nats-Num-Pending', String(pending)],
    ['Nats-Last-Sequence', String(previous)],
  ]);
  return { headers, payload: message.payload };
}

/** What a message counts against `max_bytes`: subject, stored headers and payload. */
function sizeOf(message: StoredMessage): number {
  return message.subject.length + (message.headers?.length ?? 0) + message.payload.length;
}

/** The end of a batch: what is left unsent and the last sequence sent. */
function endOfBatch(entries: Array<[string, string]>): DirectGetReply {
  return { headers: withHeaders(statusBlock(204, 'EOB'), entries), payload: EMPTY };
}

/** Up to `batch` messages from the start (or the next ones matching `next_by_subj`), then EOB. */
function batchReplies(stream: StoredStream, query: MessageQuery): DirectGetReply[] {
  const filter = query.next_by_subj ?? '';
  let seq = startSeq(stream, query);
  // A negative batch sends nothing but the end, as nats-server's loop does.
  const batch = query.batch!;
  const maxBytes = query.max_bytes || DEFAULT_MAX_BYTES;
  let pending = stream.store.numPending(seq, filter, false);
  const replies: DirectGetReply[] = [];
  let previous = 0;
  let sentBytes = 0;
  for (let i = 0; i < batch; i++) {
    // The start sequence itself must exist; after it, deleted sequences are stepped over.
    const from = seq;
    const message = quietly(() =>
      i === 0 && !filter && from > 0 ? stream.load(from) : stream.store.loadNext(filter, from),
    );
    if (!message) {
      if (i > 0) break;
      return status(404, 'Message Not Found');
    }
    seq = message.seq + 1;
    if (query.no_hdr) {
      // nats-server counts pending down only while writing the headers, so the EOB of a
      // no_hdr batch reports the count from its start (getDirectRequest, v2.12.1 stream.go:5247).
      replies.push({ headers: undefined, payload: message.payload });
    } else {
      replies.push(inBatch(stream, message, pending, previous));
      pending = Math.max(0, pending - 1);
    }
    previous = message.seq;
    sentBytes += sizeOf(message);
    if (sentBytes >= maxBytes) break;
  }
  // Nothing can be stored while this runs, so the count kept above is still true.
  replies.push(
    endOfBatch([
      ['Nats-Num-Pending', String(pending)],
      ['Nats-Last-Sequence', String(previous)],
    ]),
  );
  return replies;
}

/**
 * The last message of each subject matching any of `multi_last`, at or below `up_to_seq` (or
 * before `up_to_time`), in sequence order from `seq`, then EOB naming the bound used.
 */
function lastPerSubjectReplies(stream: StoredStream, query: MessageQuery): DirectGetReply[] {
  let upTo = query.up_to_seq ?? 0;
  // The last sequence before the first message at or after that time.
  if (query.up_to_time !== undefined) {
    upTo = stream.store.seqFromTime(queryTime(query.up_to_time)) - 1;
  }
  if (upTo === 0) upTo = stream.store.state().lastSeq;
  const seqs = lastSeqsPerSubject(stream, query.multi_last!, upTo);
  if (seqs === 'too-many') return status(413, 'Too Many Results');
  if (seqs.length === 0) return status(404, 'No Results');

  const from = query.seq ?? 0;
  const batch = query.batch ?? 0;
  const maxBytes = query.max_bytes || DEFAULT_MAX_BYTES;
  let pending = seqs.length - 1;
  const replies: DirectGetReply[] = [];
  let previous = 0;
  let sentBytes = 0;
  let sent = 0;
  for (const seq of seqs) {
    if (seq < from) {
      pending = Math.max(0, pending - 1);
      continue;
    }
    const message = quietly(() => stream.load(seq));
    if (!message) return status(404, 'Message Not Found');
    replies.push(inBatch(stream, message, pending, previous));
    pending = Math.max(0, pending - 1);
    previous = seq;
    sentBytes += sizeOf(message);
    if (sentBytes >= maxBytes) break;
    sent++;
    if (batch > 0 && sent >= batch) break;
  }
  replies.push(
    endOfBatch([
      ['Nats-Num-Pending', String(pending)],
      ['Nats-Last-Sequence', String(previous)],
      ['Nats-UpTo-Sequence', String(upTo)],
    ]),
  );
  return replies;
}

/**
 * Ascending, without repeats: for each subject matching a filter, its newest sequence at or
 * below `upTo`; 'too-many' past nats-server's limit of results.
 */
function lastSeqsPerSubject(
  stream: StoredStream,
  filters: string[],
  upTo: number,
): number[] | 'too-many' {
  const seqs = new Set<number>();
  for (const filter of filters) {
    for (const [subject, state] of stream.store.subjectsState(filter)) {
      const seq =
        state.last <= upTo ? state.last : lastAtOrBelow(stream, subject, state.first, upTo);
      if (seq !== undefined) seqs.add(seq);
    }
    if (seqs.size > MAX_MULTI_LAST_RESULTS) return 'too-many';
  }
  return [...seqs].sort((a, b) => a - b);
}

/** The subject's newest message at or below `upTo`, walking back (rare: only when bounded). */
function lastAtOrBelow(
  stream: StoredStream,
  subject: string,
  first: number,
  upTo: number,
): number | undefined {
  for (let seq = upTo; seq >= first; seq--) {
    if (quietly(() => stream.load(seq))?.subject === subject) return seq;
  }
  return undefined;
}
