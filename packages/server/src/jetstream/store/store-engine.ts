/**
 * The rules of a stream store, written once over a `MessageLog`: sequence and time
 * bookkeeping, per-subject state, limits and discard (limits.ts), max_age and per-message
 * TTL expiry on one timer, and the semantics of nats-server's load / purge / compact / truncate / state
 * calls. Memory and SQLite stores are this engine over different logs.
 */
import { DueHeap } from '../shared/due-heap.js';
import { headerValue } from '../shared/header-block.js';
import { type Clock, systemClock } from './clock.js';
import { ExpiryTimer } from './expiry-timer.js';
import {
  discardNewRefusal,
  expiryCutoff,
  isTooLarge,
  messageSize,
  overStreamLimits,
  overSubjectLimit,
  refusalText,
} from './limits.js';
import type { MessageLog, RemovedSubject } from './message-log.js';
import {
  type MessageStore,
  type PurgeOptions,
  type StorageKind,
  type StoredMessage,
  type StoredPosition,
  StoreError,
  type StoreLimits,
  type StoreState,
  type SubjectState,
} from './message-store.js';
import { NEVER, storedTtl } from './message-ttl.js';
import {
  deletedSeqs,
  isAll,
  matchingEntries,
  matchingSeqs,
  matchingSubjects,
  nextMatching,
  stateFrom,
} from './subject-queries.js';

export interface EngineOptions {
  name: string;
  limits: StoreLimits;
  clock?: Clock;
}

export class StoreEngine implements MessageStore {
  readonly kind: StorageKind;
  readonly name: string;
  private limits: StoreLimits;
  private readonly clock: Clock;
  private closed = false;
  /** Set when the store can no longer tell what it holds (see writesLost). */
  private failure: StoreError | undefined;
  private readonly expiryTimer: ExpiryTimer;
  /** Messages with a TTL, by when they are due (allowMsgTtl). */
  private readonly ttls = new DueHeap<bigint>();
  /** Messages whose TTL is `never`: max_age passes them by. */
  private readonly spared = new Set<number>();
  private agedOutLast: ((message: StoredMessage) => void) | undefined;
  /** writesLost is recounting (a failed write inside it must not start another). */
  private recounting = false;

  private messages = 0;
  private bytes = 0;
  private firstSeq = 1;
  private firstTime = 0n;
  private lastSeq = 0;
  private lastTime = 0n;
  private subjects = new Map<string, SubjectState>();

  constructor(
    private readonly log: MessageLog,
    options: EngineOptions,
  ) {
    this.kind = log.kind;
    this.name = options.name;
    this.limits = options.limits;
    this.clock = options.clock ?? systemClock;
    this.expiryTimer = new ExpiryTimer(this.clock, () => this.expire());
    this.log.compress?.(this.limits.compress ?? false);
    this.reloadState();
    this.enforceAll();
  }

  /**
   * Rebuilds every count from the log: on open, and when a log lost the writes of a failed
   * transaction (a full disk), so the counts match what is really stored.
   */
  private reloadState(): void {
    const summary = this.log.summary();
    this.subjects = summary.subjects;
    this.bytes = summary.bytes;
    this.lastSeq = summary.lastSeq;
    this.lastTime = summary.lastTime;
    this.messages = 0;
    for (const state of this.subjects.values()) this.messages += state.messages;
    this.setFirst(this.log.nextSeq(0));
    this.indexTtls();
    this.armExpiry();
  }

  /** Rebuilds the TTL index from the stored headers: how TTLs survive a restart. */
  private indexTtls(): void {
    this.ttls.clear();
    this.spared.clear();
    if (!this.limits.allowMsgTtl) return;
    for (const { seq } of this.log.scan(this.firstSeq)) {
      const message = this.readSafely(seq);
      if (message) this.trackTtl(message);
    }
  }

  private trackTtl(message: StoredMessage): void {
    if (!this.limits.allowMsgTtl || !message.headers) return;
    const ttl = storedTtl(message.headers);
    if (ttl === NEVER) this.spared.add(message.seq);
    else if (ttl > 0) this.ttls.push(message.seq, message.time + BigInt(ttl) * 1_000_000_000n);
  }

  private readSafely(seq: number): StoredMessage | undefined {
    try {
      return this.log.read(seq);
    } catch {
      // A damaged message is reported by findDamaged; it has no TTL that can be trusted.
      return undefined;
    }
  }

  /**
   * The log rolled back writes this engine had counted. Recount; if even that fails, the
   * store is unusable and says so on every later call instead of serving wrong counts.
   */
  writesLost(): void {
    // A deletion by the pass below failed as well: the recount in its catch starts over.
    if (this.recounting) return;
    this.recounting = true;
    try {
      this.reloadState();
      // Deletions by max_msgs_per_subject still waiting in the log went with the transaction
      // (message-log.ts): redone as on open, or left to each subject's next message.
      try {
        this.enforceSubjectLimits();
      } catch {
        this.reloadState();
      }
    } catch (error) {
      this.failure = error instanceof StoreError ? error : new StoreError('io', String(error));
      this.expiryTimer.disarm();
    } finally {
      this.recounting = false;
    }
  }

  store(
    subject: string,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    at?: StoredPosition,
  ): StoredPosition {
    this.ensureOpen();
    if (at && at.seq <= this.lastSeq) {
      throw new StoreError(
        'bad-argument',
        `sequence ${at.seq} is not above ${this.lastSeq}`,
        this.name,
      );
    }
    const rawLength = (headers?.length ?? 0) + payload.length;
    if (isTooLarge(this.limits, rawLength)) {
      throw new StoreError('too-large', 'message too large', this.name);
    }
    const onSubject = this.subjects.get(subject);
    const refusal = discardNewRefusal(this.limits, this.messages, this.bytes, {
      rawLength,
      subjectMessages: onSubject?.messages ?? 0,
      oldestOnSubjectSize: () => (onSubject ? (this.log.entry(onSubject.first)?.size ?? 0) : 0),
      hasRollup: () => !!headers && !!headerValue(headers, 'Nats-Rollup'),
    });
    if (refusal) throw new StoreError(refusal, refusalText[refusal] ?? refusal, this.name);

    const seq = at?.seq ?? this.lastSeq + 1;
    let time = at?.time ?? this.clock();
    // Times never fall behind the last one: finding a sequence by time relies on it.
    if (time < this.lastTime) time = this.lastTime;
    const size = messageSize(this.kind, subject, headers, payload);
    const message: StoredMessage = {
      subject,
      seq,
      time,
      headers: headers && headers.length > 0 ? headers : undefined,
      payload,
    };
    this.log.append(message, size);
    this.trackTtl(message);

    if (this.messages === 0) {
      this.firstSeq = seq;
      this.firstTime = time;
    }
    this.messages++;
    this.bytes += size;
    this.lastSeq = seq;
    this.lastTime = time;
    if (onSubject) {
      onSubject.messages++;
      onSubject.last = seq;
      while (overSubjectLimit(this.limits, onSubject.messages)) {
        if (!this.removeMessage(onSubject.first, false, true)) break;
      }
    } else {
      this.subjects.set(subject, { messages: 1, first: seq, last: seq });
    }
    this.enforceStreamLimits();
    this.armExpiry();
    return { seq, time };
  }

  whenDurable(): Promise<void> {
    return this.log.whenDurable();
  }

  whenSynced(): Promise<void> {
    return this.log.whenSynced();
  }

  atomically<T>(write: () => T): T {
    this.ensureOpen();
    return this.log.atomically ? this.log.atomically(write) : write();
  }

  load(seq: number): StoredMessage {
    this.ensureOpen();
    const message = seq >= this.firstSeq && seq <= this.lastSeq ? this.read(seq) : undefined;
    if (message) return message;
    if (seq > this.lastSeq) throw new StoreError('eof', 'stream store EOF', this.name, seq);
    throw new StoreError('not-found', 'no message found', this.name, seq);
  }

  loadNext(filter: string, start: number): StoredMessage | undefined {
    this.ensureOpen();
    const seq = nextMatching(
      this.subjects,
      this.log,
      this.lastSeq,
      filter,
      Math.max(start, this.firstSeq),
    );
    return seq === undefined ? undefined : this.read(seq);
  }

  loadLast(filter: string): StoredMessage | undefined {
    this.ensureOpen();
    let seq: number | undefined;
    if (isAll(filter)) {
      seq = this.log.prevSeq(this.lastSeq + 1);
    } else {
      for (const state of matchingSubjects(this.subjects, filter)) {
        if (seq === undefined || state.last > seq) seq = state.last;
      }
    }
    return seq === undefined ? undefined : this.read(seq);
  }

  remove(seq: number): boolean {
    this.ensureOpen();
    const removed = this.removeMessage(seq, false);
    if (removed) this.armExpiry();
    return removed;
  }

  erase(seq: number): boolean {
    this.ensureOpen();
    const removed = this.removeMessage(seq, true);
    if (removed) this.armExpiry();
    return removed;
  }

  purge(options: PurgeOptions = {}): number {
    this.ensureOpen();
    const subject = options.subject ?? '';
    const below = options.seq ?? 0;
    const keep = options.keep ?? 0;
    if (below > 0 && keep > 0) {
      throw new StoreError('bad-argument', 'sequence and keep can not both be set', this.name);
    }
    if (isAll(subject) && keep === 0) return below > 1 ? this.compact(below) : this.purgeAll();

    const matching = this.filteredState(0, subject);
    if (matching.messages === 0 || keep >= matching.messages) return 0;
    const limit = keep > 0 ? matching.messages - keep : Number.POSITIVE_INFINITY;
    // nats-server 2.9.10 (observed) keeps the `keep` newest sequences, not messages: with
    // interior deletes among them, fewer messages stay.
    if (isAll(subject)) return this.compact(this.lastSeq - keep + 1);
    const upTo = below > 1 ? below - 1 : matching.last;
    const doomed: number[] = [];
    for (const seq of matchingSeqs(this.log, subject, matching.first, upTo)) {
      if (doomed.length >= limit) break;
      doomed.push(seq);
    }
    for (const seq of doomed) this.removeMessage(seq, false);
    this.armExpiry();
    return doomed.length;
  }

  compact(seq: number): number {
    this.ensureOpen();
    if (seq === 0) return this.purgeAll();
    if (seq <= this.firstSeq) return 0;
    const purged = this.messages;
    if (seq > this.lastSeq) {
      this.log.removeAll();
      this.log.setLast(seq - 1, this.lastTime);
      this.lastSeq = seq - 1;
      this.clearMessages();
      return purged;
    }
    const removed = this.log.removeRange(this.firstSeq, seq - 1);
    this.forgetRemoved(removed, (subject, state) => {
      state.first = this.log.nextSeqOfSubject(subject, seq - 1) ?? state.last;
    });
    this.setFirst(this.log.nextSeq(seq - 1));
    this.armExpiry();
    return purged - this.messages;
  }

  truncate(seq: number): void {
    this.ensureOpen();
    if (seq > this.lastSeq) {
      throw new StoreError('bad-argument', 'sequence beyond the last one', this.name, seq);
    }
    const kept = this.log.entry(seq);
    const removed = this.log.removeRange(seq + 1, this.lastSeq);
    this.log.setLast(seq, kept?.time ?? this.lastTime);
    this.forgetRemoved(removed, (subject, state) => {
      state.last = this.log.prevSeqOfSubject(subject, seq + 1) ?? state.first;
    });
    this.lastSeq = seq;
    this.lastTime = kept?.time ?? this.lastTime;
    if (this.messages === 0) this.clearMessages();
  }

  seqFromTime(time: bigint): number {
    this.ensureOpen();
    if (this.messages === 0) return this.lastSeq + 1;
    if (time <= this.firstTime) return this.firstSeq;
    return this.log.firstSeqAtOrAfter(time) ?? this.lastSeq + 1;
  }

  filteredState(seq: number, filter: string): SubjectState {
    this.ensureOpen();
    const start = Math.max(seq, this.firstSeq);
    if (start > this.lastSeq || this.messages === 0) return { messages: 0, first: 0, last: 0 };
    return stateFrom(this.subjects, this.log, start, filter);
  }

  subjectsState(filter: string): Map<string, SubjectState> {
    this.ensureOpen();
    const result = new Map<string, SubjectState>();
    for (const [subject, state] of matchingEntries(this.subjects, filter))
      result.set(subject, { ...state });
    return result;
  }

  numPending(seq: number, filter: string, lastPerSubject: boolean): number {
    if (!lastPerSubject) return this.filteredState(seq, filter).messages;
    this.ensureOpen();
    const start = Math.max(seq, this.firstSeq);
    let subjects = 0;
    for (const state of matchingSubjects(this.subjects, filter))
      if (state.last >= start) subjects++;
    return subjects;
  }

  state(options: { deleted?: boolean } = {}): StoreState {
    this.ensureOpen();
    const span = this.messages === 0 ? 0 : this.lastSeq - this.firstSeq + 1;
    const state: StoreState = {
      messages: this.messages,
      bytes: this.bytes,
      firstSeq: this.firstSeq,
      firstTime: this.firstTime,
      lastSeq: this.lastSeq,
      lastTime: this.lastTime,
      numSubjects: this.subjects.size,
      numDeleted: span - this.messages,
    };
    if (options.deleted)
      state.deleted = deletedSeqs(this.log, this.firstSeq, this.lastSeq, state.numDeleted);
    return state;
  }

  findDamaged(): number[] {
    this.ensureOpen();
    const damaged: number[] = [];
    for (const { seq } of this.log.scan(this.firstSeq)) {
      try {
        this.log.read(seq);
      } catch (error) {
        if (!(error instanceof StoreError && error.code === 'corrupt' && error.seq === seq)) {
          throw error;
        }
        damaged.push(seq);
      }
    }
    return damaged;
  }

  updateLimits(limits: StoreLimits): void {
    this.ensureOpen();
    const ttlsChanged = (limits.allowMsgTtl ?? false) !== (this.limits.allowMsgTtl ?? false);
    // The deletions the log still defers first: a raised max_msgs_per_subject would not redo
    // them on reopening.
    this.log.removeDeferred?.();
    this.limits = limits;
    if (ttlsChanged) this.indexTtls();
    this.log.compress?.(limits.compress ?? false);
    this.enforceAll();
  }

  onAgedOutLast(listener: ((message: StoredMessage) => void) | undefined): void {
    this.agedOutLast = listener;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.expiryTimer.disarm();
    // Counts of a store that failed are not worth saving: the next open counts from the file.
    const state = this.failure
      ? undefined
      : {
          subjects: this.subjects,
          bytes: this.bytes,
          lastSeq: this.lastSeq,
          lastTime: this.lastTime,
        };
    await this.log.close(state);
  }

  async delete(): Promise<void> {
    this.closed = true;
    this.expiryTimer.disarm();
    await this.log.destroy();
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError('closed', 'store is closed', this.name);
    if (this.failure) throw this.failure;
  }

  private read(seq: number): StoredMessage | undefined {
    return this.log.read(seq);
  }

  /**
   * `bySubjectLimit`: the oldest message of a subject over max_msgs_per_subject, which reopening
   * removes again (enforceAll) as long as the newer ones are there (message-log.ts).
   */
  private removeMessage(seq: number, erase: boolean, bySubjectLimit = false): boolean {
    const entry = this.log.entry(seq);
    if (!entry) return false;
    this.log.remove(seq, erase, bySubjectLimit);
    this.spared.delete(seq);
    this.messages--;
    this.bytes -= entry.size;
    const state = this.subjects.get(entry.subject)!;
    // With one message left (a KV key's previous value replaced) it is both first and last.
    if (--state.messages === 0) {
      this.subjects.delete(entry.subject);
    } else if (seq === state.first) {
      state.first =
        state.messages === 1 ? state.last : this.log.nextSeqOfSubject(entry.subject, seq)!;
    } else if (seq === state.last) {
      state.last =
        state.messages === 1 ? state.first : this.log.prevSeqOfSubject(entry.subject, seq)!;
    }
    if (this.messages === 0) this.clearMessages();
    else if (seq === this.firstSeq) this.setFirst(this.log.nextSeq(seq));
    return true;
  }

  private purgeAll(): number {
    const purged = this.messages;
    this.log.removeAll();
    this.clearMessages();
    return purged;
  }

  /** No messages left: the next one gets the sequence after the last. */
  private clearMessages(): void {
    this.messages = 0;
    this.bytes = 0;
    this.subjects.clear();
    this.firstSeq = this.lastSeq + 1;
    this.firstTime = 0n;
    this.spared.clear();
    this.ttls.clear();
    this.expiryTimer.disarm();
  }

  private setFirst(seq: number | undefined): void {
    if (seq === undefined) {
      this.firstSeq = this.lastSeq + 1;
      this.firstTime = 0n;
      return;
    }
    this.firstSeq = seq;
    this.firstTime = this.log.entry(seq)!.time;
  }

  /** Takes range removals off the counts; `refit` fixes a subject that kept messages. */
  private forgetRemoved(
    removed: RemovedSubject[],
    refit: (subject: string, state: SubjectState) => void,
  ): void {
    for (const seq of this.spared) if (!this.log.entry(seq)) this.spared.delete(seq);
    for (const { subject, messages, bytes } of removed) {
      this.messages -= messages;
      this.bytes -= bytes;
      const state = this.subjects.get(subject)!;
      state.messages -= messages;
      if (state.messages === 0) this.subjects.delete(subject);
      else refit(subject, state);
    }
  }

  private enforceSubjectLimits(): void {
    for (const state of this.subjects.values()) {
      while (overSubjectLimit(this.limits, state.messages)) {
        if (!this.removeMessage(state.first, false, true)) break;
      }
    }
  }

  private enforceStreamLimits(): void {
    while (this.messages > 0 && overStreamLimits(this.limits, this.messages, this.bytes)) {
      if (!this.removeMessage(this.firstSeq, false)) break;
    }
  }

  private enforceAll(): void {
    this.enforceSubjectLimits();
    this.enforceStreamLimits();
    this.expiryTimer.disarm();
    this.expire();
  }

  /**
   * Removes the messages whose TTL is up and those that outlived max_age (except the ones whose
   * TTL is `never`), then sets the one timer for whichever is due next.
   */
  private expire(): void {
    if (this.closed || this.failure) return;
    const now = this.clock();
    for (const seq of this.ttls.takeDue(now)) this.removeMessage(seq, false);
    const agedOutLast = this.expireMaxAge(now);
    this.armExpiry();
    for (const message of agedOutLast) this.agedOutLast?.(message);
  }

  /** max_age: returns the removed messages that were the last of their subject. */
  private expireMaxAge(now: bigint): StoredMessage[] {
    const cutoff = expiryCutoff(this.limits, now);
    const agedOutLast: StoredMessage[] = [];
    if (cutoff === undefined) return agedOutLast;
    for (let seq = this.oldestExpirable(); seq !== undefined && this.messages > 0; ) {
      const entry = this.log.entry(seq);
      if (!entry || entry.time > cutoff) break;
      const next = this.nextExpirable(seq);
      const last = this.agedOutLast && this.subjects.get(entry.subject)?.messages === 1;
      const message = last ? this.readSafely(seq) : undefined;
      this.removeMessage(seq, false);
      if (message) agedOutLast.push(message);
      seq = next;
    }
    return agedOutLast;
  }

  /** The oldest message max_age may remove (the first not spared by a `never` TTL). */
  private oldestExpirable(): number | undefined {
    if (this.messages === 0) return undefined;
    return this.spared.has(this.firstSeq) ? this.nextExpirable(this.firstSeq) : this.firstSeq;
  }

  private nextExpirable(after: number): number | undefined {
    let seq = this.log.nextSeq(after);
    while (seq !== undefined && this.spared.has(seq)) seq = this.log.nextSeq(seq);
    return seq;
  }

  /** When the next message is due to expire (clock time), or undefined when none will. */
  private nextExpiry(): bigint | undefined {
    let due = this.ttls.nextDue;
    if (this.limits.maxAge > 0n && this.messages > 0) {
      const oldest = this.oldestExpirable();
      const time =
        oldest === undefined
          ? undefined
          : oldest === this.firstSeq
            ? this.firstTime
            : this.log.entry(oldest)?.time;
      if (time !== undefined) {
        const byAge = time + this.limits.maxAge;
        if (due === undefined || byAge < due) due = byAge;
      }
    }
    return due;
  }

  private armExpiry(): void {
    this.expiryTimer.arm(this.nextExpiry());
  }
}
