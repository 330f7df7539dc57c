/**
 * The limit and discard rules of a stream, as nats-server 2.9.10 applies them in its
 * memory and file stores. Both of our stores call these, so they cannot disagree.
 */
import type { StorageKind, StoreErrorCode, StoreLimits } from './message-store.js';

const utf8 = new TextEncoder();

function byteLength(subject: string): number {
  // Subjects are nearly always ASCII; only count UTF-8 bytes when they are not.
  for (let i = 0; i < subject.length; i++) {
    if (subject.charCodeAt(i) > 0x7f) return utf8.encode(subject).length;
  }
  return subject.length;
}

/**
 * The bytes a message counts for in stream state and account usage, so that `bytes` in
 * STREAM.INFO and ACCOUNT.INFO match nats-server's for the same messages:
 * - memory: subject + headers + payload + 16 (sequence and timestamp);
 * - file: the record of its file store, 22 (length, sequence, timestamp, subject length)
 *   + subject + payload + 8 (hash), plus 4 + headers when there are headers.
 */
export function messageSize(
  kind: StorageKind,
  subject: string,
  headers: Uint8Array | undefined,
  payload: Uint8Array,
): number {
  const headerLength = headers?.length ?? 0;
  const subjectLength = byteLength(subject);
  if (kind === 'memory') return subjectLength + headerLength + payload.length + 16;
  const headerField = headerLength > 0 ? 4 + headerLength : 0;
  return 22 + subjectLength + headerField + payload.length + 8;
}

/** Headers plus payload over `max_msg_size` (0 or less: no limit). */
export function isTooLarge(limits: StoreLimits, headerAndPayloadLength: number): boolean {
  return limits.maxMsgSize > 0 && headerAndPayloadLength > limits.maxMsgSize;
}

export interface IncomingMessage {
  /** Headers plus payload, unframed: what nats-server 2.9.10 compares with max_bytes. */
  rawLength: number;
  /** Messages already stored on this subject. */
  subjectMessages: number;
  /** Stored size of the oldest message on this subject, read only when needed. */
  oldestOnSubjectSize: () => number;
  /** Whether it carries a `Nats-Rollup` header, read only when needed. */
  hasRollup: () => boolean;
}

/** What a store's error says for each refusal of discard_new. */
export const refusalText: Partial<Record<StoreErrorCode, string>> = {
  'max-msgs': 'maximum messages exceeded',
  'max-bytes': 'maximum bytes exceeded',
  'max-per-subject': 'maximum messages per subject exceeded',
};

/**
 * Under discard new, the error that refuses a message, or undefined to accept it. A
 * subject at its max_msgs_per_subject replaces its oldest message, so the stream-wide
 * limits do not refuse it (unless discard_new_per_subject asks to refuse it instead).
 * The byte check is 2.9.10's: stored bytes plus the raw length reaching max_bytes.
 */
export function discardNewRefusal(
  limits: StoreLimits,
  storedMessages: number,
  storedBytes: number,
  incoming: IncomingMessage,
): StoreErrorCode | undefined {
  if (limits.discard !== 'new') return undefined;
  const atSubjectLimit =
    limits.maxMsgsPerSubject > 0 && incoming.subjectMessages >= limits.maxMsgsPerSubject;
  if (atSubjectLimit && limits.discardNewPerSubject) {
    // 2.14 lets a rollup through, which restores the limit (b7a69dc, memstore.go storeRawMsg).
    if (!(limits.rollupPastSubjectLimit && incoming.hasRollup())) return 'max-per-subject';
  }
  if (limits.maxMsgs > 0 && storedMessages >= limits.maxMsgs && !atSubjectLimit) {
    return 'max-msgs';
  }
  if (limits.maxBytes > 0 && storedBytes + incoming.rawLength >= limits.maxBytes) {
    if (!atSubjectLimit || incoming.oldestOnSubjectSize() <= incoming.rawLength) {
      return 'max-bytes';
    }
  }
  return undefined;
}

/** More messages on one subject than max_msgs_per_subject allows. */
export function overSubjectLimit(limits: StoreLimits, subjectMessages: number): boolean {
  return limits.maxMsgsPerSubject > 0 && subjectMessages > limits.maxMsgsPerSubject;
}

/**
 * The stream holds more than max_msgs or max_bytes allow, so its oldest message goes.
 * Applied after every store whatever the discard policy, as nats-server does.
 */
export function overStreamLimits(limits: StoreLimits, messages: number, bytes: number): boolean {
  return (
    (limits.maxMsgs > 0 && messages > limits.maxMsgs) ||
    (limits.maxBytes > 0 && bytes > limits.maxBytes)
  );
}

/** Time at or before which a message has outlived max_age, or undefined without max_age. */
export function expiryCutoff(limits: StoreLimits, now: bigint): bigint | undefined {
  return limits.maxAge > 0n ? now - limits.maxAge : undefined;
}
