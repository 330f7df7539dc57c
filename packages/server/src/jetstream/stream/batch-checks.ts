/**
 * The checks an atomic batch passes at its commit, before any of it is stored: every message's
 * expected-* headers, `Nats-Msg-Id` and rollup against the stream as it was before the batch,
 * counter increments, and the stream's discard-new limits against the whole batch (nats-server 2.12's
 * checkMsgHeadersPreClusteredProposal, server/jetstream_batching.go at v2.12.15, as a single
 * server runs it). What one message of the batch did is staged here, so that a later one
 * cannot rely on it: only the first may name the last sequence, a subject written earlier in
 * the batch cannot be checked or rolled up again.
 */
import { ApiError, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import { headerValue } from '../shared/header-block.js';
import { messageSize } from '../store/limits.js';
import type { StorageKind } from '../store/message-store.js';
import { InvalidTtl, messageTtl } from '../store/message-ttl.js';
import { refuseIncrement } from './counter.js';

const MAX_HEADER_BYTES = 65_535;
const EXPECTED_LAST_MSG_ID = 'Nats-Expected-Last-Msg-Id';
const INCREMENT_HEADER = 'Nats-Incr';

/** One message of a batch, as it will be stored. */
export interface BatchMessage {
  readonly subject: string;
  readonly headers: Uint8Array;
  readonly payload: Uint8Array;
}

/** What the checks read of the stream, as it is before the batch. */
export interface BatchCheckedStream {
  readonly config: StreamConfig;
  readonly kind: StorageKind;
  readonly lastSeq: number;
  readonly messages: number;
  readonly bytes: number;
  /** The subject a message is stored under (the stream's subject transform applied). */
  storedSubject(subject: string): string;
  /** Sequence of the last message matching `filter`, 0 for none. */
  lastSeqOf(filter: string): number;
  /** Messages stored on `subject`. */
  messagesOn(subject: string): number;
  /** Whether the duplicate window holds `msgId`. */
  isDuplicate(msgId: string): boolean;
}

/** Go's parseInt64 as a uint64 (what nats-server compares sequence headers as): a non-digit is -1. */
export function parseSequence(value: string): bigint {
  if (!/^\d+$/.test(value)) return 2n ** 64n - 1n;
  return BigInt.asUintN(64, BigInt(value));
}

/** The error that refuses the batch, or undefined when all of it may be stored. */
export function checkBatch(
  stream: BatchCheckedStream,
  messages: readonly BatchMessage[],
): ApiError | undefined {
  const staged = new StagedBatch();
  for (const [index, message] of messages.entries()) {
    const refusal = checkMessage(stream, staged, index, message);
    if (refusal) return refusal;
  }
  return undefined;
}

/** What the messages checked so far will change. */
class StagedBatch {
  readonly msgIds = new Set<string>();
  /** Messages and stored bytes per subject. */
  readonly inflight = new Map<string, { messages: number; bytes: number }>();
  /** The sequence a Nats-Expected-Last-Subject-Sequence subject was found at. */
  readonly expectedPerSubject = new Map<string, bigint>();
  messages = 0;
  bytes = 0;
}

function checkMessage(
  stream: BatchCheckedStream,
  staged: StagedBatch,
  index: number,
  message: BatchMessage,
): ApiError | undefined {
  const { config } = stream;
  const { headers, payload } = message;
  const subject = stream.storedSubject(message.subject);
  const header = (name: string) => headerValue(headers, name);
  if (header(EXPECTED_LAST_MSG_ID)) {
    return ApiError.of(jsErrors.JSAtomicPublishUnsupportedHeaderBatchErr, {
      header: EXPECTED_LAST_MSG_ID,
    });
  }
  if (headers.length > MAX_HEADER_BYTES) {
    return ApiError.of(jsErrors.JSStreamHeaderExceedsMaximumErr);
  }
  const counters = config.allow_msg_counter ?? false;
  const incrementRefusal = refuseIncrement(headers, payload, false, counters);
  if (incrementRefusal) return ApiError.of(incrementRefusal);
  const expectedStream = header('Nats-Expected-Stream');
  if (expectedStream && expectedStream !== config.name) {
    return ApiError.of(jsErrors.JSStreamNotMatchErr);
  }
  const ttlRefusal = checkTtl(config, headers);
  if (ttlRefusal) return ttlRefusal;
  const msgId = header('Nats-Msg-Id');
  if (msgId) {
    if (staged.msgIds.has(msgId) || stream.isDuplicate(msgId)) {
      return ApiError.of(jsErrors.JSAtomicPublishContainsDuplicateMessageErr);
    }
    staged.msgIds.add(msgId);
  }
  if (counters && header(INCREMENT_HEADER) === undefined) {
    return ApiError.of(jsErrors.JSMessageIncrMissingErr);
  }
  const lastSeqRefusal = checkExpectedLastSeq(
    stream,
    staged,
    index,
    header('Nats-Expected-Last-Sequence'),
  );
  if (lastSeqRefusal) return lastSeqRefusal;
  const subjectRefusal = checkExpectedLastSubjectSeq(stream, staged, subject, header);
  if (subjectRefusal) return subjectRefusal;
  const rollupRefusal = checkRollup(config, staged, subject, header('Nats-Rollup'));
  if (rollupRefusal) return rollupRefusal;
  const inflight = staged.inflight.get(subject) ?? { messages: 0, bytes: 0 };
  const size = messageSize(stream.kind, subject, headers, payload);
  inflight.messages++;
  inflight.bytes += size;
  staged.inflight.set(subject, inflight);
  staged.messages++;
  staged.bytes += size;
  return checkDiscardNew(stream, staged, subject, inflight.messages);
}

/** v2.12.15 jetstream_batching.go:312-320: a TTL only where TTLs are allowed, and valid. */
function checkTtl(config: StreamConfig, headers: Uint8Array): ApiError | undefined {
  let invalid = false;
  let ttl = 0;
  try {
    ttl = messageTtl(headers);
  } catch (error) {
    if (!(error instanceof InvalidTtl)) throw error;
    invalid = true;
  }
  if (ttl === 0 && !invalid) return undefined;
  if (!config.allow_msg_ttl) return ApiError.of(jsErrors.JSMessageTTLDisabledErr);
  return invalid ? ApiError.of(jsErrors.JSMessageTTLInvalidErr) : undefined;
}

/**
 * v2.12.15 jetstream_batching.go:468-476: the last sequence is compared with the stream's as it
 * will be when the message is stored (each message before it in the batch adds one), and only
 * the first message may carry it at all.
 */
function checkExpectedLastSeq(
  stream: BatchCheckedStream,
  staged: StagedBatch,
  index: number,
  value: string | undefined,
): ApiError | undefined {
  if (value === undefined || value === '') return undefined;
  const current = stream.lastSeq + index;
  if (parseSequence(value) !== BigInt(current)) {
    return ApiError.of(jsErrors.JSStreamWrongLastSequenceErrF, { seq: current });
  }
  if (staged.inflight.size > 0) return ApiError.of(jsErrors.JSStreamWrongLastSequenceConstantErr);
  return undefined;
}

/** v2.12.15 jetstream_batching.go:478-538: per subject, against the stream before the batch. */
function checkExpectedLastSubjectSeq(
  stream: BatchCheckedStream,
  staged: StagedBatch,
  subject: string,
  header: (name: string) => string | undefined,
): ApiError | undefined {
  const value = header('Nats-Expected-Last-Subject-Sequence');
  const named = header('Nats-Expected-Last-Subject-Sequence-Subject');
  if (value === undefined || value === '') {
    return named ? ApiError.of(jsErrors.JSStreamExpectedLastSeqPerSubjectInvalid) : undefined;
  }
  const checked = named || subject;
  // Written earlier in this batch: the check would describe a state the batch has changed.
  if (staged.inflight.has(checked))
    return ApiError.of(jsErrors.JSStreamWrongLastSequenceConstantErr);
  const expected = parseSequence(value);
  let found = staged.expectedPerSubject.get(checked);
  if (found === undefined) {
    found = BigInt(stream.lastSeqOf(checked));
    if (found === expected) staged.expectedPerSubject.set(checked, found);
  }
  if (found !== expected) {
    return ApiError.of(jsErrors.JSStreamWrongLastSequenceErrF, { seq: Number(found) });
  }
  return undefined;
}

/** v2.12.15 jetstream_batching.go:580-603: a rollup of a subject or the stream comes first. */
function checkRollup(
  config: StreamConfig,
  staged: StagedBatch,
  subject: string,
  rollup: string | undefined,
): ApiError | undefined {
  if (!rollup) return undefined;
  const failed = (err: string) => ApiError.of(jsErrors.JSStreamRollupFailedF, { err });
  if (!config.allow_rollup_hdrs || config.deny_purge) return failed('rollup not permitted');
  if (rollup === 'sub') {
    return staged.inflight.has(subject) ? failed('batch rollup sub invalid') : undefined;
  }
  if (rollup === 'all') {
    return staged.inflight.size > 0 ? failed('batch rollup all invalid') : undefined;
  }
  return failed(`rollup value invalid: ${JSON.stringify(rollup)}`);
}

/**
 * v2.12.15 jetstream_batching.go:630-668: under discard new, the stream with the whole batch
 * must stay within max_msgs and max_bytes, each subject within max_msgs_per_subject when
 * discard_new_per_subject. nats-server counts only the batch's own messages of a subject and
 * leaves the store to refuse the rest, part-way through the batch; the stored ones count here
 * too, so such a batch is refused whole, with the error the store would give.
 */
function checkDiscardNew(
  stream: BatchCheckedStream,
  staged: StagedBatch,
  subject: string,
  onSubjectInBatch: number,
): ApiError | undefined {
  const { config } = stream;
  const maxMsgs = config.max_msgs ?? -1;
  const maxBytes = config.max_bytes ?? -1;
  if (config.discard !== 'new' || (maxMsgs <= 0 && maxBytes <= 0)) return undefined;
  const failed = (err: string) => ApiError.of(jsErrors.JSStreamStoreFailedF, { err });
  const maxPerSubject = config.max_msgs_per_subject ?? -1;
  if (
    config.discard_new_per_subject &&
    maxPerSubject > 0 &&
    stream.messagesOn(subject) + onSubjectInBatch > maxPerSubject
  ) {
    return failed('maximum messages per subject exceeded');
  }
  if (maxMsgs > 0 && stream.messages + staged.messages > maxMsgs) {
    return failed('maximum messages exceeded');
  }
  if (maxBytes > 0 && stream.bytes + staged.bytes > maxBytes) {
    return failed('maximum bytes exceeded');
  }
  return undefined;
}
