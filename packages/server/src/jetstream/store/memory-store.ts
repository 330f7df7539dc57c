/**
 * Memory storage: the store engine over a log kept in columns. A stored message is a row of
 * typed arrays (sequence, time, size, where its bytes are) plus two array slots (its subject's
 * record, the chunk holding its bytes), in blocks of rows, and its bytes are copied into shared
 * chunks: storing one creates no object that lives on, so a stream of millions of messages
 * gives the garbage collector nothing to trace or move for them. Reads build the message on
 * demand, with views into the chunk. Nothing is written anywhere, so every change is durable
 * at once.
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
/**
 * Rows are kept in blocks of this many, so the log grows without copying what it holds and
 * gives a block back once the front passes it. A log's first block starts small and grows to
 * this size, so that a stream of a few messages takes little.
 */
const BLOCK_ROWS = 1024;
const FIRST_BLOCK_ROWS = 32;
const NO_HEADERS = -1;

/** A subject's messages; every row of the subject points at the same record. */
interface SubjectRecord {
  readonly subject: string;
  readonly seqs: SeqList;
}

/** Consecutive rows, a column each: sequence, time, size, where the bytes are. */
class RowBlock {
  seqs: Float64Array;
  times: BigInt64Array;
  sizes: Float64Array;
  offsets: Int32Array;
  headerLengths: Int32Array;
  payloadLengths: Int32Array;
  /** Undefined for a removed row. */
  readonly subjectOf: (SubjectRecord | undefined)[] = [];
  readonly chunkOf: (Buffer | undefined)[] = [];

  constructor(capacity: number) {
    this.seqs = new Float64Array(capacity);
    this.times = new BigInt64Array(capacity);
    this.sizes = new Float64Array(capacity);
    this.offsets = new Int32Array(capacity);
    this.headerLengths = new Int32Array(capacity);
    this.payloadLengths = new Int32Array(capacity);
  }

  get capacity(): number {
    return this.seqs.length;
  }

  /** Twice the room, keeping the rows (a log's first block only, up to BLOCK_ROWS). */
  grow(): void {
    const capacity = this.capacity * 2;
    this.seqs = grown(this.seqs, new Float64Array(capacity));
    this.times = grown(this.times, new BigInt64Array(capacity));
    this.sizes = grown(this.sizes, new Float64Array(capacity));
    this.offsets = grown(this.offsets, new Int32Array(capacity));
    this.headerLengths = grown(this.headerLengths, new Int32Array(capacity));
    this.payloadLengths = grown(this.payloadLengths, new Int32Array(capacity));
  }
}

function grown<T extends Float64Array | BigInt64Array | Int32Array>(column: T, target: T): T {
  // Both are of T's kind: the union's set() just cannot say so.
  (target as Float64Array).set(column as Float64Array);
  return target;
}

const seqsOf = (block: RowBlock) => block.seqs;
const timesOf = (block: RowBlock) => block.times;

const durable = Promise.resolve();

class MemoryLog implements MessageLog {
  readonly kind = 'memory';
  /**
   * Rows in sequence order, numbered from the log's start. Rows outside [head, rows) are gone;
   * a removed row between holds no subject until the front passes it.
   */
  private head = 0;
  private rows = 0;
  /** The blocks holding rows from `firstBlock * BLOCK_ROWS` on. */
  private blocks: RowBlock[] = [];
  private firstBlock = 0;
  private chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  private chunkUsed = 0;
  private bySubject = new Map<string, SubjectRecord>();
  private lastSeq = 0;
  private lastTime = 0n;

  append(message: StoredMessage, size: number): void {
    const row = this.rows++;
    const block = this.blockForNewRow(row);
    const i = row % BLOCK_ROWS;
    const { headers, payload } = message;
    block.seqs[i] = message.seq;
    block.times[i] = message.time;
    block.sizes[i] = size;
    let record = this.bySubject.get(message.subject);
    if (!record) {
      record = { subject: message.subject, seqs: new SeqList() };
      this.bySubject.set(message.subject, record);
    }
    record.seqs.push(message.seq);
    block.subjectOf[i] = record;
    // The caller's bytes may be a view into a socket's chunk: copy them, or the whole socket
    // chunk stays alive with the message.
    const headerLength = headers ? headers.length : 0;
    const length = headerLength + payload.length;
    const chunk = this.chunkFor(length);
    const offset = chunk === this.chunk ? this.chunkUsed : 0;
    if (headers) chunk.set(headers, offset);
    chunk.set(payload, offset + headerLength);
    if (chunk === this.chunk) this.chunkUsed += length;
    block.chunkOf[i] = chunk;
    block.offsets[i] = offset;
    block.headerLengths[i] = headers ? headerLength : NO_HEADERS;
    block.payloadLengths[i] = payload.length;
    this.lastSeq = message.seq;
    this.lastTime = message.time;
  }

  read(seq: number): StoredMessage | undefined {
    const row = this.rowOf(seq);
    if (row < 0) return undefined;
    const block = this.blockOf(row);
    const i = row % BLOCK_ROWS;
    const chunk = block.chunkOf[i]!;
    const offset = block.offsets[i]!;
    const headerLength = block.headerLengths[i]!;
    const payloadStart = offset + Math.max(headerLength, 0);
    return {
      subject: block.subjectOf[i]!.subject,
      seq,
      time: block.times[i]!,
      headers: headerLength === NO_HEADERS ? undefined : chunk.subarray(offset, payloadStart),
      payload: chunk.subarray(payloadStart, payloadStart + block.payloadLengths[i]!),
    };
  }

  entry(seq: number): LogEntry | undefined {
    const row = this.rowOf(seq);
    if (row < 0) return undefined;
    const block = this.blockOf(row);
    const i = row % BLOCK_ROWS;
    return { subject: block.subjectOf[i]!.subject, time: block.times[i]!, size: block.sizes[i]! };
  }

  remove(seq: number, erase: boolean): void {
    const row = this.rowOf(seq);
    if (row >= 0) this.removeRow(row, erase);
  }

  removeRange(from: number, to: number): RemovedSubject[] {
    const removed = new Map<string, { subject: string; messages: number; bytes: number }>();
    // A removal may move the front past rows still to visit (already gone), and drop their block.
    for (
      let row = this.rowAtOrAfter(from);
      row < this.rows && this.seqAt(row) <= to;
      row = Math.max(row + 1, this.head)
    ) {
      const record = this.subjectAt(row);
      if (!record) continue;
      let tally = removed.get(record.subject);
      if (!tally) {
        removed.set(record.subject, (tally = { subject: record.subject, messages: 0, bytes: 0 }));
      }
      tally.messages++;
      tally.bytes += this.blockOf(row).sizes[row % BLOCK_ROWS]!;
      this.removeRow(row, false);
    }
    return [...removed.values()];
  }

  removeAll(): void {
    this.head = 0;
    this.rows = 0;
    this.blocks = [];
    this.firstBlock = 0;
    this.bySubject = new Map();
  }

  nextSeq(after: number): number | undefined {
    return this.liveSeqFrom(this.rowAtOrAfter(after + 1));
  }

  prevSeq(before: number): number | undefined {
    for (let row = this.rowAtOrAfter(before) - 1; row >= this.head; row--) {
      if (this.subjectAt(row)) return this.seqAt(row);
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
      yield { seq, subject: this.subjectAt(this.rowOf(seq))!.subject };
    }
  }

  firstSeqAtOrAfter(time: bigint): number | undefined {
    // Times never fall as sequences rise (the engine sees to it), so the rows are sorted by time.
    return this.liveSeqFrom(this.firstRowAtLeast(timesOf, time));
  }

  setLast(seq: number, time: bigint): void {
    this.lastSeq = seq;
    this.lastTime = time;
  }

  whenDurable(): Promise<void> {
    return durable;
  }

  whenSynced(): Promise<void> {
    return durable;
  }

  summary(): LogSummary {
    const subjects = new Map<string, SubjectState>();
    let bytes = 0;
    for (let row = this.head; row < this.rows; row++) {
      const record = this.subjectAt(row);
      if (!record) continue;
      const seq = this.seqAt(row);
      const state = subjects.get(record.subject);
      if (state) {
        state.messages++;
        state.last = seq;
      } else {
        subjects.set(record.subject, { messages: 1, first: seq, last: seq });
      }
      bytes += this.blockOf(row).sizes[row % BLOCK_ROWS]!;
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

  /** The block for a row being appended, made or grown when the row is the first past it. */
  private blockForNewRow(row: number): RowBlock {
    const index = Math.floor(row / BLOCK_ROWS) - this.firstBlock;
    let block = this.blocks[index];
    if (!block) {
      block = new RowBlock(row === 0 ? FIRST_BLOCK_ROWS : BLOCK_ROWS);
      this.blocks.push(block);
    }
    while (row % BLOCK_ROWS >= block.capacity) block.grow();
    return block;
  }

  private blockOf(row: number): RowBlock {
    return this.blocks[Math.floor(row / BLOCK_ROWS) - this.firstBlock]!;
  }

  private seqAt(row: number): number {
    return this.blockOf(row).seqs[row % BLOCK_ROWS]!;
  }

  private subjectAt(row: number): SubjectRecord | undefined {
    return this.blockOf(row).subjectOf[row % BLOCK_ROWS];
  }

  private removeRow(row: number, erase: boolean): void {
    const block = this.blockOf(row);
    const i = row % BLOCK_ROWS;
    const record = block.subjectOf[i];
    if (!record) return;
    record.seqs.remove(block.seqs[i]!);
    if (record.seqs.length === 0) this.bySubject.delete(record.subject);
    if (erase) {
      // The bytes stay in a chunk that other messages keep alive: overwrite them.
      const start = block.offsets[i]!;
      const length = Math.max(block.headerLengths[i]!, 0) + block.payloadLengths[i]!;
      block.chunkOf[i]!.fill(0, start, start + length);
    }
    block.subjectOf[i] = undefined;
    block.chunkOf[i] = undefined;
    // Removed rows at either end go, so that the next sequence appended after a truncate
    // still lands above every row; so do the blocks left behind them.
    while (this.head < this.rows && !this.subjectAt(this.head)) this.head++;
    while (this.rows > this.head && !this.subjectAt(this.rows - 1)) this.rows--;
    while (this.blocks.length > 1 && this.head >= (this.firstBlock + 1) * BLOCK_ROWS) {
      this.blocks.shift();
      this.firstBlock++;
    }
    while (
      this.blocks.length > 1 &&
      (this.firstBlock + this.blocks.length - 1) * BLOCK_ROWS >= this.rows
    ) {
      this.blocks.pop();
    }
  }

  /** The row holding `seq`, or -1 when no message has it. */
  private rowOf(seq: number): number {
    const row = this.rowAtOrAfter(seq);
    return row < this.rows && this.seqAt(row) === seq && this.subjectAt(row) ? row : -1;
  }

  /** The first row at or after `head` whose sequence is at least `seq` (`rows` if none). */
  private rowAtOrAfter(seq: number): number {
    if (this.head === this.rows || seq <= this.seqAt(this.head)) return this.head;
    if (seq > this.seqAt(this.rows - 1)) return this.rows;
    // Without gaps in the sequences, the row is where counting from the front says.
    const guess = this.head + (seq - this.seqAt(this.head));
    if (guess < this.rows && this.seqAt(guess) === seq) return guess;
    return this.firstRowAtLeast(seqsOf, seq);
  }

  /** The first row from `head` on whose value in a column, ascending, is at least `value`. */
  private firstRowAtLeast<T extends number | bigint>(
    column: (block: RowBlock) => ArrayLike<T>,
    value: T,
  ): number {
    let low = this.head;
    let high = this.rows;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (column(this.blockOf(middle))[middle % BLOCK_ROWS]! < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The sequence of the first message at or after `row`. */
  private liveSeqFrom(row: number): number | undefined {
    for (; row < this.rows; row++) if (this.subjectAt(row)) return this.seqAt(row);
    return undefined;
  }
}
