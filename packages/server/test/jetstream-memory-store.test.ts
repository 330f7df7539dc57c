/**
 * The memory store's own layout: messages packed into shared chunks and kept in columns by row.
 * The shared store suites check the rules; these check that the bytes and sequences survive the
 * layout's edges (chunk boundaries, messages of their own chunk, gaps in the sequences, rows
 * compacted or grown, erase in a shared chunk).
 */
import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../src/jetstream/store/memory-store.js';
import { type MessageStore, NO_LIMITS } from '../src/jetstream/store/message-store.js';

interface Expected {
  subject: string;
  headers: Buffer | undefined;
  payload: Buffer;
}

/** Deterministic bytes, different for every message and position. */
function filled(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (seed * 31 + i * 7) & 0xff;
  return bytes;
}

function expectStored(store: MessageStore, seq: number, expected: Expected): void {
  const message = store.load(seq);
  expect(message.seq).toBe(seq);
  expect(message.subject).toBe(expected.subject);
  expect(message.headers && Buffer.from(message.headers)).toEqual(expected.headers);
  expect(Buffer.from(message.payload)).toEqual(expected.payload);
}

describe('memory store layout', () => {
  it('reads back every message across chunks, sequence gaps, removals and growth', () => {
    const store = openMemoryStore({ name: 'LAYOUT', limits: NO_LIMITS });
    const expected = new Map<number, Expected>();
    let seq = 0;
    for (let i = 0; i < 3000; i++) {
      // Sizes around the chunk's edges: empty, small, just under and over half a chunk, large.
      const length = [0, 1, 128, 4095, 4097, 9000][i % 6]! + (i % 11);
      const headers = i % 4 === 0 ? filled(20 + (i % 5), i + 1) : undefined;
      const payload = filled(length, i);
      const subject = `s.${i % 7}`;
      // Now and then a mirror's position skips sequences.
      const at =
        i % 97 === 50 ? { seq: seq + 5, time: BigInt(Date.now()) * 1_000_000n } : undefined;
      seq = store.store(subject, headers, payload, at).seq;
      expected.set(seq, { subject, headers, payload });
      // Removals at the front, in the middle and at the end, while rows keep coming.
      if (i % 3 === 0) {
        const removed = seq - (i % 9 === 0 ? 0 : 2);
        if (expected.delete(removed)) store.remove(removed);
      }
      if (i % 500 === 499) {
        const oldest = [...expected.keys()].slice(0, 300);
        for (const old of oldest) {
          expected.delete(old);
          store.remove(old);
        }
      }
    }
    const seqs = [...expected.keys()].sort((a, b) => a - b);
    for (const stored of seqs) expectStored(store, stored, expected.get(stored)!);
    // Walking forward finds exactly the stored sequences.
    const walked: number[] = [];
    for (let next = store.loadNext('', 0); next; next = store.loadNext('', next.seq + 1)) {
      walked.push(next.seq);
    }
    expect(walked).toEqual(seqs);
    expect(store.state()).toMatchObject({
      messages: seqs.length,
      firstSeq: seqs[0],
      lastSeq: seq,
      numDeleted: seq - seqs[0]! + 1 - seqs.length,
    });
    // Truncating drops the end; new messages follow it in order.
    const kept = seqs[seqs.length - 10]!;
    store.truncate(kept);
    const next = store.store('s.new', undefined, filled(10, 1)).seq;
    expect(next).toBe(kept + 1);
    expect(store.loadLast('')?.seq).toBe(next);
    expect(store.loadNext('', kept)?.seq).toBe(kept);
    expect(store.loadNext('', kept + 1)?.seq).toBe(next);
  });

  it('keeps its rows through block boundaries: compact over removed rows, truncate, purge', () => {
    const store = openMemoryStore({ name: 'BLOCKS', limits: NO_LIMITS });
    const fill = (count: number) => {
      for (let i = 0; i < count; i++) store.store('b', undefined, filled(16, i));
    };
    const walk = (from: number) => {
      const seqs: number[] = [];
      for (let m = store.loadNext('', from); m; m = store.loadNext('', m.seq + 1)) seqs.push(m.seq);
      return seqs;
    };
    const range = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => from + i);
    fill(5000);
    // Rows around the ends of the first blocks gone first, then everything before them.
    for (let seq = 1000; seq <= 2100; seq++) store.remove(seq);
    expect(store.compact(2500)).toBe(2500 - 1 - (2100 - 1000 + 1));
    expect(walk(1)).toEqual(range(2500, 5000));
    // Back over more than a block from the end, then on from there.
    store.truncate(3000);
    fill(10);
    expect(walk(2990)).toEqual(range(2990, 3010));
    expectStored(store, 3010, { subject: 'b', headers: undefined, payload: filled(16, 9) });
    expect(store.seqFromTime(store.load(2600).time)).toBe(2600);
    // Emptied, the log starts over and still counts on from the last sequence.
    store.purge();
    fill(1500);
    expect(walk(1)).toEqual(range(3011, 4510));
    expect(store.state()).toMatchObject({ messages: 1500, firstSeq: 3011, lastSeq: 4510 });
  });

  it('overwrites an erased message’s bytes and leaves its neighbours in the chunk intact', () => {
    const store = openMemoryStore({ name: 'ERASE', limits: NO_LIMITS });
    for (let i = 1; i <= 3; i++) store.store('a', filled(30, i), filled(100, i));
    const erased = store.load(2);
    expect(store.erase(2)).toBe(true);
    expect(erased.payload.every((byte) => byte === 0)).toBe(true);
    expect(erased.headers!.every((byte) => byte === 0)).toBe(true);
    for (const seq of [1, 3]) {
      expectStored(store, seq, {
        subject: 'a',
        headers: filled(30, seq),
        payload: filled(100, seq),
      });
    }
  });
});
