/**
 * Where a store keeps its messages: the physical half of a store. The rules (sequences,
 * limits, per-subject state, purge semantics) live once in store-engine.ts; a log only
 * keeps messages by sequence and answers ordered look-ups. Sequences are appended in
 * increasing order and never reused.
 */
import type { StorageKind, StoredMessage, SubjectState } from './message-store.js';

export interface LogEntry {
  readonly subject: string;
  readonly time: bigint;
  /** The message's stored size (limits.ts `messageSize`). */
  readonly size: number;
}

/** What a range removal took away from one subject. */
export interface RemovedSubject {
  readonly subject: string;
  readonly messages: number;
  readonly bytes: number;
}

/** Everything a store needs to rebuild its state from a log it reopens. */
export interface LogSummary {
  readonly subjects: Map<string, SubjectState>;
  readonly bytes: number;
  /** The last sequence assigned and its time (kept even when that message is gone). */
  readonly lastSeq: number;
  readonly lastTime: bigint;
}

export interface MessageLog {
  readonly kind: StorageKind;
  /** Keeps the message; its bytes are the caller's, so a log that holds them copies them. */
  append(message: StoredMessage, size: number): void;
  /** The message, checked for damage (throws `corrupt`), or undefined. */
  read(seq: number): StoredMessage | undefined;
  /** Subject, time and size of a message without reading its payload. */
  entry(seq: number): LogEntry | undefined;
  /**
   * Removes one message; with `erase`, its bytes are overwritten first. `bySubjectLimit`: the
   * oldest of a subject over max_msgs_per_subject (a KV put's replaced value), which the store
   * removes again on reopening as long as the newer messages of its subject are still there; so
   * the log may make it durable later than the writes around it, but no later than the next
   * query over a range or a subject, or any other removal (a read or entry of its sequence finds
   * nothing meanwhile). Any other removal changes what the limits keep on reopening
   * (a slot freed by a delete or a TTL, bytes freed by a smaller value), so none is deferred.
   */
  remove(seq: number, erase: boolean, bySubjectLimit?: boolean): void;
  /**
   * Writes the removals `remove` deferred now, in the open transaction: the limits that would
   * redo them on reopening are about to change. A log that defers none has nothing to do.
   */
  removeDeferred?(): void;
  /** Removes every message in [from, to] and says what each subject lost. */
  removeRange(from: number, to: number): RemovedSubject[];
  removeAll(): void;
  /** The first sequence above `after` that holds a message. */
  nextSeq(after: number): number | undefined;
  /** The last sequence below `before` that holds a message. */
  prevSeq(before: number): number | undefined;
  /** The first sequence above `after` holding a message on `subject`. */
  nextSeqOfSubject(subject: string, after: number): number | undefined;
  /** The last sequence below `before` holding a message on `subject`. */
  prevSeqOfSubject(subject: string, before: number): number | undefined;
  /** How many messages `subject` has at or after `from`. */
  countOfSubjectFrom(subject: string, from: number): number;
  /** Sequence and subject of every message at or after `from`, ascending. */
  scan(from: number): Iterable<{ seq: number; subject: string }>;
  /** The first sequence whose time is at or after `time`. */
  firstSeqAtOrAfter(time: bigint): number | undefined;
  /** Remembers the last sequence and time, which outlive the message that had them. */
  setLast(seq: number, time: bigint): void;
  /**
   * Whether messages appended from now on are kept compressed (a stream's `compression`);
   * messages already stored read back either way. A log without it keeps them as they are.
   */
  compress?(enabled: boolean): void;
  /** Whatever is pending becomes durable; resolves when it is. */
  whenDurable(): Promise<void>;
  /** On disk whatever the sync mode (MessageStore.whenSynced). */
  whenSynced(): Promise<void>;
  /** Runs `write` as one unit, undone whole when it throws (a log without it just runs it). */
  atomically?<T>(write: () => T): T;
  /** What the log holds, counted: on open (from a clean close's saved counts when it has them). */
  summary(): LogSummary;
  /** `state`: the counts as the engine kept them, which a log may save for its next open. */
  close(state?: LogSummary): Promise<void>;
  destroy(): Promise<void>;
}
