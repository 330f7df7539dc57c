/**
 * Memory storage: the store engine over a log kept in columns. A stored message is a row of
 * typed arrays (sequence, time, size, where its bytes are) plus two array slots (its subject's
 * record, the chunk holding its bytes), and its bytes are copied into shared chunks: storing
 * one creates no object that lives on, so a stream of millions of messages gives the garbage
 * collector nothing to trace or move for them. Reads build the message on demand, with views
 * into the chunk. Nothing is written anywhere, so every change is durable at once.
 */
import type { Clock } from './clock.js';
import type { LogEntry, LogSummary, MessageLog, RemovedSubject } from './message-log.js';
import type { MessageStore, StoredMessage, StoreLimits, SubjectState } from './message-store.js';
import { SeqList } from './seq-list.js';
import { StoreEngine } from './store-engine.js';

export interface MemoryStoreOptions {
  /** The stream's name, used in errors. */
  name: string;
  limits: StoreLimits;
  clock?: Clock;
}

export function openMemoryStore(options: MemoryStoreOptions): MessageStore {
  return new StoreEngine(new MemoryLog(), options);
}

/**
 * Bytes of small messages are packed into chunks of this size, the size of Node's own Buffer
 * pool: a chunk lives while any message in it does, so a few old messages kept (a KV bucket's
 * last values) hold no more memory than Buffer.from copies did. A message over half of it gets
 * a chunk of its own.
 */
const CHUNK_BYTES = 8 * 1024;
const INITIAL_ROWS = 64;
const NO_HEADERS = -1;

/** A subject's messages; every row of the subject points at the same record. */
interface SubjectRecord {
  readonly subject: string;
  readonly seqs: SeqList;
}

const durable = Promise.resolve();

class MemoryLog implements MessageLog {
  readonly kind = 'memory';
  /**
   * Rows in sequence order. Rows outside [head, rows) are gone; a removed row between holds
   * no subject until the front passes it or the rows are compacted.
   */
  private head = 0;
  private rows = 0;
  private seqs = new Float64Array(INITIAL_ROWS);
  private times = new BigInt64Array(INITIAL_ROWS);
  private sizes = new Float64Array(INITIAL_ROWS);
  private offsets = new Int32Array(INITIAL_ROWS);
  private headerLengths = new Int32Array(INITIAL_ROWS);
  private payloadLengths = new Int32Array(INITIAL_ROWS);
  private subjectOf: (SubjectRecord | undefined)[] = [];
  private chunkOf: (Buffer | undefined)[] = [];
  private chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  private chunkUsed = 0;
  private bySubject = new Map<string, SubjectRecord>();
  private lastSeq = 0;
  private lastTime = 0n;

  append(message: StoredMessage, size: number): void {
    if (this.rows === this.seqs.length) this.makeRoom();
    const row = this.rows++;
    const { headers, payload } = message;
    this.seqs[row] = message.seq;
    this.times[row] = message.time;
    this.sizes[row] = size;
    let record = this.bySubject.get(message.subject);
    if (!record) {
      record = { subject: message.subject, seqs: new SeqList() };
      this.bySubject.set(message.subject, record);
    }
    record.seqs.push(message.seq);
    this.subjectOf[row] = record;
    // The caller's bytes may be a view into a socket's chunk: copy them, or the whole socket
    // chunk stays alive with the message.
    const headerLength = headers ? headers.length : 0;
    const length = headerLength + payload.length;
    const chunk = this.chunkFor(length);
    const offset = chunk === this.chunk ? this.chunkUsed : 0;
    if (headers) chunk.set(headers, offset);
    chunk.set(payload, offset + headerLength);
    if (chunk === this.chunk) this.chunkUsed += length;
    this.chunkOf[row] = chunk;
    this.offsets[row] = offset;
    this.headerLengths[row] = headers ? headerLength : NO_HEADERS;
    this.payloadLengths[row] = payload.length;
    this.lastSeq = message.seq;
    this.lastTime = message.time;
  }

  read(seq: number): StoredMessage | undefined {
    const row = this.rowOf(seq);
    if (row < 0) return undefined;
    const chunk = this.chunkOf[row]!;
    const offset = this.offsets[row]!;
    const headerLength = this.headerLengths[row]!;
    const payloadStart = offset + Math.max(headerLength, 0);
    return {
      subject: this.subjectOf[row]!.subject,
      seq,
      time: this.times[row]!,
      headers: headerLength === NO_HEADERS ? undefined : chunk.subarray(offset, payloadStart),
      payload: chunk.subarray(payloadStart, payloadStart + this.payloadLengths[row]!),
    };
  }

  entry(seq: number): LogEntry | undefined {
    const row = this.rowOf(seq);
    if (row < 0) return undefined;
    return {
      subject: this.subjectOf[row]!.subject,
      time: this.times[row]!,
      size: this.sizes[row]!,
    };
  }

  remove(seq: number, erase: boolean): void {
    const row = this.rowOf(seq);
    if (row >= 0) this.removeRow(row, erase);
  }

  removeRange(from: number, to: number): RemovedSubject[] {
    const removed = new Map<string, { subject: string; messages: number; bytes: number }>();
    for (let row = this.rowAtOrAfter(from); row < this.rows && this.seqs[row]! <= to; row++) {
      const record = this.subjectOf[row];
      if (!record) continue;
      let tally = removed.get(record.subject);
      if (!tally)
        removed.set(record.subject, (tally = { subject: record.subject, messages: 0, bytes: 0 }));
      tally.messages++;
      tally.bytes += this.sizes[row]!;
      this.removeRow(row, false);
    }
    return [...removed.values()];
  }

  removeAll(): void {
    this.head = 0;
    this.rows = 0;
    this.subjectOf = [];
    this.chunkOf = [];
    this.bySubject = new Map();
  }

  nextSeq(after: number): number | undefined {
    return this.liveSeqFrom(this.rowAtOrAfter(after + 1));
  }

  prevSeq(before: number): number | undefined {
    for (let row = this.rowAtOrAfter(before) - 1; row >= this.head; row--) {
      if (this.subjectOf[row]) return this.seqs[row];
    }
    return undefined;
  }

  nextSeqOfSubject(subject: string, after: number): number | undefined {
    return this.bySubject.get(subject)?.seqs.next(after);
  }

  prevSeqOfSubject(subject: string, before: number): number | undefined {
    return this.bySubject.get(subject)?.seqs.prev(before);
  }

  countOfSubjectFrom(subject: string, from: number): number {
    return this.bySubject.get(subject)?.seqs.countFrom(from) ?? 0;
  }

  /** Looks each next row up again, so the caller may remove messages as it goes. */
  *scan(from: number): Iterable<{ seq: number; subject: string }> {
    for (let seq = this.nextSeq(from - 1); seq !== undefined; seq = this.nextSeq(seq)) {
      yield { seq, subject: this.subjectOf[this.rowOf(seq)]!.subject };
    }
  }

  firstSeqAtOrAfter(time: bigint): number | undefined {
    // Times never fall as sequences rise (the engine sees to it), so the rows are sorted by time.
    return this.liveSeqFrom(this.firstRowAtLeast(this.times, time));
  }

  setLast(seq: number, time: bigint): void {
    this.lastSeq = seq;
    this.lastTime = time;
  }

  whenDurable(): Promise<void> {
    return durable;
  }

  summary(): LogSummary {
    const subjects = new Map<string, SubjectState>();
    let bytes = 0;
    for (let row = this.head; row < this.rows; row++) {
      const record = this.subjectOf[row];
      if (!record) continue;
      const seq = this.seqs[row]!;
      const state = subjects.get(record.subject);
      if (state) {
        state.messages++;
        state.last = seq;
      } else {
        subjects.set(record.subject, { messages: 1, first: seq, last: seq });
      }
      bytes += this.sizes[row]!;
    }
    return { subjects, bytes, lastSeq: this.lastSeq, lastTime: this.lastTime };
  }

  async close(): Promise<void> {
    this.removeAll();
  }

  async destroy(): Promise<void> {
    this.removeAll();
  }

  /** The chunk a message of `length` bytes goes into, at `chunkUsed` unless it is its own. */
  private chunkFor(length: number): Buffer {
    if (length > CHUNK_BYTES / 2) return Buffer.allocUnsafeSlow(length);
    if (this.chunkUsed + length > CHUNK_BYTES) {
      this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
      this.chunkUsed = 0;
    }
    return this.chunk;
  }

  private removeRow(row: number, erase: boolean): void {
    const record = this.subjectOf[row];
    if (!record) return;
    record.seqs.remove(this.seqs[row]!);
    if (record.seqs.length === 0) this.bySubject.delete(record.subject);
    if (erase) {
      // The bytes stay in a chunk that other messages keep alive: overwrite them.
      const start = this.offsets[row]!;
      const length = Math.max(this.headerLengths[row]!, 0) + this.payloadLengths[row]!;
      this.chunkOf[row]!.fill(0, start, start + length);
    }
    this.subjectOf[row] = undefined;
    this.chunkOf[row] = undefined;
    // Removed rows at either end go, so that the next sequence appended after a truncate
    // still lands above every row.
    while (this.head < this.rows && !this.subjectOf[this.head]) this.head++;
    while (this.rows > this.head && !this.subjectOf[this.rows - 1]) this.rows--;
  }

  /** The row holding `seq`, or -1 when no message has it. */
  private rowOf(seq: number): number {
    // Without gaps in the sequences, the row is where counting from the front says.
    const guess = this.head + (seq - this.seqs[this.head]!);
    const row =
      guess >= this.head && guess < this.rows && this.seqs[guess] === seq
        ? guess
        : this.rowAtOrAfter(seq);
    return row < this.rows && this.seqs[row] === seq && this.subjectOf[row] ? row : -1;
  }

  /** The first row at or after `head` whose sequence is at least `seq` (`rows` if none). */
  private rowAtOrAfter(seq: number): number {
    return this.firstRowAtLeast(this.seqs, seq);
  }

  /** The first row whose value in `column`, ascending over the rows, is at least `value`. */
  private firstRowAtLeast<T extends number | bigint>(column: ArrayLike<T>, value: T): number {
    let low = this.head;
    let high = this.rows;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (column[middle]! < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The sequence of the first message at or after `row`. */
  private liveSeqFrom(row: number): number | undefined {
    for (; row < this.rows; row++) if (this.subjectOf[row]) return this.seqs[row];
    return undefined;
  }

  /** Full: slide the live rows to the front if that frees half, or else double the columns. */
  private makeRoom(): void {
    const live = this.rows - this.head;
    const capacity = live * 2 <= this.seqs.length ? this.seqs.length : this.seqs.length * 2;
    const from = this.head;
    const to = this.rows;
    this.seqs = relocated(this.seqs, from, to, capacity);
    this.times = relocated(this.times, from, to, capacity);
    this.sizes = relocated(this.sizes, from, to, capacity);
    this.offsets = relocated(this.offsets, from, to, capacity);
    this.headerLengths = relocated(this.headerLengths, from, to, capacity);
    this.payloadLengths = relocated(this.payloadLengths, from, to, capacity);
    this.subjectOf = this.subjectOf.slice(from, to);
    this.chunkOf = this.chunkOf.slice(from, to);
    this.head = 0;
    this.rows = live;
  }
}

type Column = Float64Array | BigInt64Array | Int32Array;

/** The rows [from, to) of `column` at the front of a column of `capacity` rows (itself if it fits). */
function relocated<T extends Column>(column: T, from: number, to: number, capacity: number): T {
  if (capacity === column.length) return column.copyWithin(0, from, to) as T;
  const target = new (column.constructor as new (length: number) => T)(capacity);
  // Both are of T's kind: the union's set() just cannot say so.
  (target as Float64Array).set(column.subarray(from, to) as Float64Array);
  return target;
}
