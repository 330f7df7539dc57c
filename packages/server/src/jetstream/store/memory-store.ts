/**
 * Memory storage: the store engine over a log of plain data structures, a sequence ->
 * message Map and a per-subject list of sequences. Nothing is written anywhere, so every
 * change is durable at once in the only sense that applies, and erasing a message is
 * dropping it (no copy of its bytes is kept anywhere to overwrite).
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

interface Slot extends LogEntry {
  readonly message: StoredMessage;
}

const durable = Promise.resolve();

class MemoryLog implements MessageLog {
  readonly kind = 'memory';
  /** Insertion order is sequence order, since sequences only grow. */
  private slots = new Map<number, Slot>();
  private bySubject = new Map<string, SeqList>();
  private lastSeq = 0;
  private lastTime = 0n;

  append(appended: StoredMessage, size: number): void {
    // The caller's bytes may be a view into a socket's chunk: copy them, or the whole chunk
    // stays alive with the message. (A Buffer's slice() is a view, not a copy.) Buffer.from
    // copies small messages into Node's shared 8 KiB pool: no allocation per message.
    const message = {
      ...appended,
      headers: appended.headers && Buffer.from(appended.headers),
      payload: Buffer.from(appended.payload),
    };
    this.slots.set(message.seq, { message, subject: message.subject, time: message.time, size });
    let seqs = this.bySubject.get(message.subject);
    if (!seqs) this.bySubject.set(message.subject, (seqs = new SeqList()));
    seqs.push(message.seq);
    this.lastSeq = message.seq;
    this.lastTime = message.time;
  }

  read(seq: number): StoredMessage | undefined {
    return this.slots.get(seq)?.message;
  }

  entry(seq: number): LogEntry | undefined {
    return this.slots.get(seq);
  }

  remove(seq: number): void {
    const slot = this.slots.get(seq);
    if (!slot) return;
    this.slots.delete(seq);
    const seqs = this.bySubject.get(slot.subject)!;
    seqs.remove(seq);
    if (seqs.length === 0) this.bySubject.delete(slot.subject);
  }

  removeRange(from: number, to: number): RemovedSubject[] {
    const removed = new Map<string, { subject: string; messages: number; bytes: number }>();
    for (const { seq } of [...this.scanUpTo(from, to)]) {
      const slot = this.slots.get(seq)!;
      const tally = removed.get(slot.subject) ?? { subject: slot.subject, messages: 0, bytes: 0 };
      tally.messages++;
      tally.bytes += slot.size;
      removed.set(slot.subject, tally);
      this.remove(seq);
    }
    return [...removed.values()];
  }

  removeAll(): void {
    this.slots = new Map();
    this.bySubject = new Map();
  }

  nextSeq(after: number): number | undefined {
    const lowest = this.lowestSeq();
    if (lowest === undefined || after < lowest) return lowest;
    for (let seq = after + 1; seq <= this.lastSeq; seq++) if (this.slots.has(seq)) return seq;
    return undefined;
  }

  prevSeq(before: number): number | undefined {
    const lowest = this.lowestSeq();
    if (lowest === undefined) return undefined;
    for (let seq = Math.min(before - 1, this.lastSeq); seq >= lowest; seq--) {
      if (this.slots.has(seq)) return seq;
    }
    return undefined;
  }

  nextSeqOfSubject(subject: string, after: number): number | undefined {
    return this.bySubject.get(subject)?.next(after);
  }

  prevSeqOfSubject(subject: string, before: number): number | undefined {
    return this.bySubject.get(subject)?.prev(before);
  }

  countOfSubjectFrom(subject: string, from: number): number {
    return this.bySubject.get(subject)?.countFrom(from) ?? 0;
  }

  scan(from: number): Iterable<{ seq: number; subject: string }> {
    return this.scanUpTo(from, this.lastSeq);
  }

  firstSeqAtOrAfter(time: bigint): number | undefined {
    for (const [seq, slot] of this.slots) if (slot.time >= time) return seq;
    return undefined;
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
    for (const slot of this.slots.values()) {
      const state = subjects.get(slot.subject);
      if (state) {
        state.messages++;
        state.last = slot.message.seq;
      } else {
        subjects.set(slot.subject, {
          messages: 1,
          first: slot.message.seq,
          last: slot.message.seq,
        });
      }
      bytes += slot.size;
    }
    return { subjects, bytes, lastSeq: this.lastSeq, lastTime: this.lastTime };
  }

  async close(): Promise<void> {
    this.removeAll();
  }

  async destroy(): Promise<void> {
    this.removeAll();
  }

  private lowestSeq(): number | undefined {
    return this.slots.keys().next().value;
  }

  private *scanUpTo(from: number, to: number): Iterable<{ seq: number; subject: string }> {
    for (
      let seq = this.nextSeq(from - 1);
      seq !== undefined && seq <= to;
      seq = this.nextSeq(seq)
    ) {
      yield { seq, subject: this.slots.get(seq)!.subject };
    }
  }
}
