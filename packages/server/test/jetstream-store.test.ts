import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageStore, StoreLimits } from '../src/jetstream/store/message-store.js';
import {
  bytes,
  STREAM,
  type StoreKind,
  storeKinds,
  temporaryDirectory,
  text,
} from './jetstream-store-kinds.js';

/** Stores one message per subject given, payload `m<seq>`. */
function fill(store: MessageStore, subjects: string[]): void {
  for (const subject of subjects) {
    store.store(subject, undefined, bytes(`m${store.state().lastSeq + 1}`));
  }
}

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe.each(storeKinds)('$kind store', (kind: StoreKind) => {
  let dir: ReturnType<typeof temporaryDirectory>;
  let store: MessageStore;
  const open = (limits?: Partial<StoreLimits>) => (store = kind.open(dir.path, limits));

  beforeEach(() => {
    dir = temporaryDirectory();
  });
  afterEach(async () => {
    await store?.close();
    dir.remove();
  });

  it('reads forward one message at a time through removals, purges and new messages', () => {
    open();
    fill(
      store,
      Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? 'a' : 'b')),
    );
    // A consumer's walk: the next message after the last one read, again and again.
    const walk = (from: number, count: number) => {
      const seen: number[] = [];
      for (let next = from; seen.length < count; ) {
        const message = store.loadNext('', next);
        if (!message) break;
        seen.push(message.seq);
        next = message.seq + 1;
      }
      return seen;
    };
    expect(walk(1, 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    store.remove(12);
    store.erase(13);
    expect(walk(11, 3)).toEqual([11, 14, 15]);
    expect(codeOf(() => store.load(13))).toBe('not-found');
    store.purge({ subject: 'b', seq: 300 });
    expect(walk(16, 3)).toEqual([16, 19, 22]);
    store.compact(400);
    expect(walk(22, 2)).toEqual([400, 401]);
    expect(walk(598, 5)).toEqual([598, 599, 600]);
    fill(store, ['c', 'c']);
    expect(walk(600, 5)).toEqual([600, 601, 602]);
    expect(text(store.load(602).payload)).toBe('m602');
  });

  it("keeps its own copy of what it stores, not a view of the caller's buffer", () => {
    open();
    // A parsed message is a view into the socket's chunk.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const headers = chunk.subarray(10, 20);
    const payload = chunk.subarray(100, 228);
    store.store('a', headers, payload);
    chunk.fill('y');
    const loaded = store.load(1);
    expect(text(loaded.payload)).toBe('x'.repeat(128));
    expect(text(loaded.headers!)).toBe('x'.repeat(10));
    // Nor does it keep the whole chunk alive through the view.
    expect(loaded.payload.buffer.byteLength).toBeLessThan(chunk.length);
  });

  it('stores messages under rising sequences and times and loads them back', () => {
    open();
    const headers = bytes('NATS/1.0\r\nA: b\r\n\r\n');
    const payload = bytes('hello');
    const first = store.store('orders.new', headers, payload);
    payload[0] = 0; // the store kept its own copy
    const second = store.store('orders.new', undefined, new Uint8Array(0));
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(second.time).toBeGreaterThanOrEqual(first.time);
    expect(first.time).toBeGreaterThan(1_700_000_000_000_000_000n);

    const loaded = store.load(1);
    expect(loaded.subject).toBe('orders.new');
    expect(loaded.time).toBe(first.time);
    expect(text(loaded.payload)).toBe('hello');
    expect(text(loaded.headers!)).toBe('NATS/1.0\r\nA: b\r\n\r\n');
    expect(store.load(2).headers).toBeUndefined();
    expect(store.load(2).payload.length).toBe(0);
    expect(codeOf(() => store.load(3))).toBe('eof');
    store.remove(1);
    expect(codeOf(() => store.load(1))).toBe('not-found');
    expect(codeOf(() => store.load(0))).toBe('not-found');
  });

  it('counts bytes as nats-server does for its storage type', () => {
    open();
    store.store('ab', bytes('NATS/1.0\r\n\r\n'), bytes('12345'));
    store.store('ab', undefined, bytes('12345'));
    // Observed on nats-server 2.9.10 (with and without headers): memory counts
    // subject + headers + payload + 16; file 22 + subject + (4 + headers) + payload + 8.
    const expected =
      kind.kind === 'memory'
        ? 2 + 12 + 5 + 16 + (2 + 5 + 16)
        : 22 + 2 + 4 + 12 + 5 + 8 + (22 + 2 + 5 + 8);
    expect(store.state().bytes).toBe(expected);
  });

  it('loads the next message matching a literal, wildcard or empty filter', () => {
    open();
    fill(store, ['a.1', 'b.1', 'a.2', 'b.2', 'a.1', 'c']);
    expect(store.loadNext('a.1', 1)?.seq).toBe(1);
    expect(store.loadNext('a.1', 2)?.seq).toBe(5);
    expect(store.loadNext('a.*', 4)?.seq).toBe(5);
    expect(store.loadNext('b.>', 3)?.seq).toBe(4);
    expect(store.loadNext('>', 6)?.seq).toBe(6);
    expect(store.loadNext('', 0)?.seq).toBe(1);
    expect(store.loadNext('a.1', 6)).toBeUndefined();
    expect(store.loadNext('zzz', 1)).toBeUndefined();
    expect(store.loadNext('', 7)).toBeUndefined();
    store.remove(5);
    expect(store.loadNext('a.*', 4)).toBeUndefined();
  });

  it('finds wildcard matches by scanning when there are many subjects', () => {
    open();
    fill(
      store,
      Array.from({ length: 400 }, (_, i) => `key.${i}`),
    );
    fill(store, ['other.x', 'key.7']);
    expect(store.loadNext('other.*', 1)?.seq).toBe(401);
    expect(store.loadNext('key.7', 9)?.seq).toBe(402);
    expect(store.loadNext('*.x', 1)?.seq).toBe(401);
    expect(store.loadLast('key.*')?.seq).toBe(402);
  });

  it('loads the last message of a subject, filter or the stream', () => {
    open();
    fill(store, ['a.1', 'b.1', 'a.2', 'b.1']);
    expect(store.loadLast('a.1')?.seq).toBe(1);
    expect(store.loadLast('a.*')?.seq).toBe(3);
    expect(store.loadLast('b.1')?.seq).toBe(4);
    expect(store.loadLast('')?.seq).toBe(4);
    expect(store.loadLast('nope')).toBeUndefined();
    store.remove(4);
    expect(store.loadLast('>')?.seq).toBe(3);
    expect(store.loadLast('b.1')?.seq).toBe(2);
  });

  it('removes and erases messages, moving the first sequence and listing interior deletes', () => {
    open();
    fill(store, ['a', 'b', 'a', 'b', 'a']);
    expect(store.remove(3)).toBe(true);
    expect(store.remove(3)).toBe(false);
    expect(store.erase(5)).toBe(true);
    expect(store.erase(42)).toBe(false);
    let state = store.state({ deleted: true });
    expect(state).toMatchObject({
      messages: 3,
      firstSeq: 1,
      lastSeq: 5,
      numDeleted: 2,
      numSubjects: 2,
    });
    expect(state.deleted).toEqual([3, 5]);
    expect(store.subjectsState('a').get('a')).toEqual({ messages: 1, first: 1, last: 1 });
    store.remove(1);
    state = store.state({ deleted: true });
    expect(state).toMatchObject({ messages: 2, firstSeq: 2, numDeleted: 2 });
    expect(state.firstTime).toBe(store.load(2).time);
    expect(state.deleted).toEqual([3, 5]);
    store.remove(2);
    store.remove(4);
    state = store.state({ deleted: true });
    expect(state).toMatchObject({
      messages: 0,
      bytes: 0,
      firstSeq: 6,
      lastSeq: 5,
      numDeleted: 0,
      firstTime: 0n,
    });
    expect(state.deleted).toEqual([]);
    expect(store.store('a', undefined, bytes('x')).seq).toBe(6);
  });

  it('purges everything, keeping the sequence', () => {
    open();
    fill(store, ['a', 'b', 'c']);
    const lastTime = store.state().lastTime;
    expect(store.purge()).toBe(3);
    expect(store.state()).toMatchObject({
      messages: 0,
      bytes: 0,
      firstSeq: 4,
      lastSeq: 3,
      lastTime,
      numSubjects: 0,
    });
    expect(store.store('a', undefined, bytes('x')).seq).toBe(4);
    expect(store.purge({ subject: '>', seq: 1 })).toBe(1);
  });

  it('purges by subject, below a sequence, and keeping the newest', () => {
    open();
    fill(store, ['a.1', 'b', 'a.2', 'b', 'a.1', 'b', 'a.2', 'b']);
    expect(store.purge({ subject: 'a.*', seq: 5 })).toBe(2); // 1 and 3
    expect(store.purge({ subject: 'b', keep: 1 })).toBe(3); // 2, 4 and 6
    expect(store.state({ deleted: true })).toMatchObject({
      messages: 3,
      firstSeq: 5,
      deleted: [6],
    });
    expect(store.purge({ subject: 'a.1' })).toBe(1);
    expect(store.purge({ subject: 'nope' })).toBe(0);
    expect(store.purge({ subject: 'a.2', keep: 5 })).toBe(0);
    expect([...store.subjectsState('').keys()].sort()).toEqual(['a.2', 'b']);
    expect(codeOf(() => store.purge({ seq: 3, keep: 1 }))).toBe('bad-argument');
  });

  it('purges all subjects keeping the newest sequences, and all below a sequence', () => {
    open();
    fill(store, ['a', 'b', 'c', 'd', 'e', 'f']);
    store.remove(3);
    store.remove(5);
    // As nats-server 2.9.10 does (observed): keep 2 keeps sequences 5 and 6, so only 6 stays.
    expect(store.purge({ keep: 2 })).toBe(3);
    expect(store.state()).toMatchObject({ messages: 1, firstSeq: 6 });
    expect(store.purge({ keep: 1 })).toBe(0);
    fill(store, ['g', 'h']);
    expect(store.purge({ seq: 8 })).toBe(2);
    expect(store.state()).toMatchObject({ messages: 1, firstSeq: 8 });
  });

  it('compacts below a sequence, also a deleted one or past the end', () => {
    open();
    fill(store, ['a', 'b', 'a', 'b', 'a', 'b']);
    store.remove(4);
    expect(store.compact(4)).toBe(3);
    expect(store.state()).toMatchObject({ messages: 2, firstSeq: 5, lastSeq: 6 });
    expect(store.subjectsState('')).toEqual(
      new Map([
        ['a', { messages: 1, first: 5, last: 5 }],
        ['b', { messages: 1, first: 6, last: 6 }],
      ]),
    );
    expect(store.compact(2)).toBe(0);
    expect(store.compact(100)).toBe(2);
    expect(store.state()).toMatchObject({ messages: 0, firstSeq: 100, lastSeq: 99 });
    expect(store.store('a', undefined, bytes('x')).seq).toBe(100);
    expect(store.compact(0)).toBe(1);
  });

  it('truncates above a sequence', () => {
    open();
    fill(store, ['a', 'b', 'a', 'b', 'a']);
    const timeOf2 = store.load(2).time;
    store.truncate(2);
    expect(store.state()).toMatchObject({ messages: 2, lastSeq: 2, lastTime: timeOf2 });
    expect(store.subjectsState('a').get('a')).toEqual({ messages: 1, first: 1, last: 1 });
    expect(store.store('c', undefined, bytes('x')).seq).toBe(3);
    expect(codeOf(() => store.truncate(9))).toBe('bad-argument');
  });

  it('refuses a message over max_msg_size', () => {
    open({ maxMsgSize: 10 });
    expect(codeOf(() => store.store('a', bytes('NATS/1.0\r\n'), bytes('x')))).toBe('too-large');
    expect(store.store('a', undefined, bytes('0123456789')).seq).toBe(1);
    expect(store.state().messages).toBe(1);
  });

  it('drops the oldest messages over max_msgs and max_bytes under discard old', () => {
    open({ maxMsgs: 3 });
    fill(store, ['a', 'b', 'c', 'd', 'e']);
    expect(store.state()).toMatchObject({ messages: 3, firstSeq: 3, lastSeq: 5 });
    store.updateLimits({ ...limitsOf(store), maxMsgs: 0, maxBytes: 2 * sizeOfOne(store) });
    expect(store.state()).toMatchObject({ messages: 2, firstSeq: 4 });
    fill(store, ['f']);
    expect(store.state()).toMatchObject({ messages: 2, firstSeq: 5 });
  });

  it('refuses new messages at max_msgs and max_bytes under discard new', () => {
    open({ maxMsgs: 2, discard: 'new' });
    fill(store, ['a', 'b']);
    expect(codeOf(() => fill(store, ['c']))).toBe('max-msgs');
    expect(store.state()).toMatchObject({ messages: 2, lastSeq: 2 });
    // 2.9.10's check: stored bytes plus the raw length of the new message reaching max_bytes
    const stored = store.state().bytes;
    store.updateLimits({ ...limitsOf(store), maxMsgs: 0, maxBytes: stored + 3 });
    expect(codeOf(() => store.store('c', undefined, bytes('xyz')))).toBe('max-bytes');
    expect(store.store('c', undefined, bytes('xy')).seq).toBe(3);
  });

  it('keeps max_msgs_per_subject by dropping the subject’s oldest, also under discard new', () => {
    open({ maxMsgsPerSubject: 2, maxMsgs: 4, discard: 'new' });
    fill(store, ['k.1', 'k.2', 'k.1', 'k.2']);
    // At max_msgs, but k.1 is at its own limit so the new one replaces its oldest.
    fill(store, ['k.1']);
    expect(store.state({ deleted: true })).toMatchObject({ messages: 4, firstSeq: 2, deleted: [] });
    expect(codeOf(() => fill(store, ['k.3']))).toBe('max-msgs');
    expect(store.subjectsState('k.1').get('k.1')).toEqual({ messages: 2, first: 3, last: 5 });
  });

  it('refuses a message on a full subject with discard_new_per_subject', () => {
    open({ maxMsgsPerSubject: 1, discard: 'new', discardNewPerSubject: true });
    fill(store, ['k.1', 'k.2']);
    expect(codeOf(() => fill(store, ['k.1']))).toBe('max-per-subject');
    expect(store.state().messages).toBe(2);
  });

  it('applies a lowered max_msgs_per_subject to what is stored', () => {
    open();
    fill(store, ['k.1', 'k.1', 'k.2', 'k.1', 'k.2']);
    store.updateLimits({ ...limitsOf(store), maxMsgsPerSubject: 1 });
    expect(store.subjectsState('')).toEqual(
      new Map([
        ['k.1', { messages: 1, first: 4, last: 4 }],
        ['k.2', { messages: 1, first: 5, last: 5 }],
      ]),
    );
  });

  it('expires messages older than max_age', async () => {
    open({ maxAge: 150_000_000n });
    fill(store, ['a', 'b']);
    await sleep(80);
    fill(store, ['c']);
    await sleep(120);
    expect(store.state()).toMatchObject({ messages: 1, firstSeq: 3 });
    await sleep(150);
    expect(store.state()).toMatchObject({ messages: 0, firstSeq: 4, lastSeq: 3 });
  });

  it('counts pending messages and subjects for a filter from a sequence', () => {
    open();
    fill(store, ['a.1', 'a.2', 'b.1', 'a.1', 'a.2', 'b.1']);
    expect(store.numPending(1, '', false)).toBe(6);
    expect(store.numPending(2, 'a.*', false)).toBe(3);
    expect(store.numPending(5, 'a.>', false)).toBe(1);
    expect(store.numPending(1, 'a.*', true)).toBe(2);
    expect(store.numPending(5, 'a.*', true)).toBe(1);
    expect(store.numPending(1, '>', true)).toBe(3);
    expect(store.numPending(7, '', false)).toBe(0);
    expect(store.filteredState(2, 'a.1')).toEqual({ messages: 1, first: 4, last: 4 });
    expect(store.filteredState(0, 'a.*')).toEqual({ messages: 4, first: 1, last: 5 });
    expect(store.filteredState(3, '')).toEqual({ messages: 4, first: 3, last: 6 });
    expect(store.filteredState(1, 'zzz')).toEqual({ messages: 0, first: 0, last: 0 });
  });

  it('reports per-subject state for a filter', () => {
    open();
    fill(store, ['a.1', 'a.2', 'b.1', 'a.1']);
    expect(store.subjectsState('a.*')).toEqual(
      new Map([
        ['a.1', { messages: 2, first: 1, last: 4 }],
        ['a.2', { messages: 1, first: 2, last: 2 }],
      ]),
    );
    expect(store.subjectsState('>').size).toBe(3);
    expect(store.subjectsState('c').size).toBe(0);
  });

  it('finds the first sequence stored at or after a time', async () => {
    open();
    expect(store.seqFromTime(0n)).toBe(1);
    fill(store, ['a', 'b']);
    await sleep(5);
    fill(store, ['c', 'd']);
    const third = store.load(3).time;
    expect(store.seqFromTime(0n)).toBe(1);
    expect(store.seqFromTime(third)).toBe(3);
    expect(store.seqFromTime(third - 1n)).toBe(3);
    expect(store.seqFromTime(store.load(4).time + 1n)).toBe(5);
    store.remove(3);
    expect(store.seqFromTime(third)).toBe(4);
  });

  it('finds the first sequence at or after every stored time, around removed runs', () => {
    open();
    for (let i = 0; i < 40; i++) {
      fill(store, ['a', 'b', 'c']);
      const until = Date.now() + 1;
      while (Date.now() < until) {}
    }
    for (const seq of [1, 2, 3, 50, 51, 52, 53, 54, 90, 119, 120]) store.remove(seq);
    const stored: Array<{ seq: number; time: bigint }> = [];
    for (let m = store.loadNext('', 1); m; m = store.loadNext('', m.seq + 1)) {
      stored.push({ seq: m.seq, time: m.time });
    }
    const expected = (time: bigint) => stored.find((m) => m.time >= time)?.seq ?? 121;
    for (const { time } of stored) {
      for (const probe of [time - 1n, time, time + 1n]) {
        expect(store.seqFromTime(probe)).toBe(expected(probe));
      }
    }
  });

  it('finds no damaged messages in a sound store', () => {
    open();
    fill(store, ['a', 'b', 'c']);
    store.remove(2);
    expect(store.findDamaged()).toEqual([]);
  });

  it('refuses every call once closed', async () => {
    open();
    fill(store, ['a']);
    await store.close();
    expect(codeOf(() => store.load(1))).toBe('closed');
    expect(codeOf(() => fill(store, ['a']))).toBe('closed');
  });

  it('is durable once whenDurable resolves', async () => {
    open();
    fill(store, ['a', 'b']);
    await store.whenDurable();
    expect(store.state().messages).toBe(2);
    expect(store.load(1).subject).toBe('a');
  });

  it('names the stream in its errors', () => {
    open({ maxMsgs: 1, discard: 'new' });
    fill(store, ['a']);
    try {
      fill(store, ['b']);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ name: 'StoreError', code: 'max-msgs', stream: STREAM });
    }
  });
});

function limitsOf(store: MessageStore): StoreLimits {
  return (store as unknown as { limits: StoreLimits }).limits;
}

function sizeOfOne(store: MessageStore): number {
  const state = store.state();
  return state.bytes / state.messages;
}
