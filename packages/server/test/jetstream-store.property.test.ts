/**
 * Random sequences of stores, removes, purges, compacts, truncates and limit changes leave
 * each store in the state of a deliberately naive model (an array of messages), for both
 * stores; the SQLite store must also come back with that state after a reopen.
 */

import { subjectMatches } from '@slipstream/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  MessageStore,
  PurgeOptions,
  StoreLimits,
} from '../src/jetstream/store/message-store.js';
import { limits, type StoreKind, storeKinds, temporaryDirectory } from './jetstream-store-kinds.js';

interface ModelMessage {
  seq: number;
  subject: string;
  size: number;
}

type Op =
  | { op: 'store'; subject: string; length: number }
  | { op: 'remove'; seq: number }
  | { op: 'purge'; options: PurgeOptions }
  | { op: 'compact'; seq: number }
  | { op: 'truncate'; seq: number }
  | { op: 'limits'; limits: StoreLimits };

const matches = (subject: string, filter: string) =>
  filter === '' || filter === '>' || subjectMatches(subject, filter);

/** The rules restated as plainly as possible, independent of the engine's bookkeeping. */
class Model {
  messages: ModelMessage[] = [];
  lastSeq = 0;
  constructor(
    private readonly kind: StoreKind['kind'],
    public limits: StoreLimits,
  ) {}

  get bytes(): number {
    return this.messages.reduce((sum, m) => sum + m.size, 0);
  }
  get firstSeq(): number {
    return this.messages[0]?.seq ?? this.lastSeq + 1;
  }
  of(subject: string): ModelMessage[] {
    return this.messages.filter((m) => m.subject === subject);
  }
  drop(seqs: number[]): number {
    const before = this.messages.length;
    this.messages = this.messages.filter((m) => !seqs.includes(m.seq));
    return before - this.messages.length;
  }

  store(subject: string, length: number): number | string {
    const l = this.limits;
    if (l.maxMsgSize > 0 && length > l.maxMsgSize) return 'too-large';
    const onSubject = this.of(subject);
    const full = l.maxMsgsPerSubject > 0 && onSubject.length >= l.maxMsgsPerSubject;
    if (l.discard === 'new') {
      if (full && l.discardNewPerSubject) return 'max-per-subject';
      if (l.maxMsgs > 0 && this.messages.length >= l.maxMsgs && !full) return 'max-msgs';
      if (l.maxBytes > 0 && this.bytes + length >= l.maxBytes) {
        if (!full || onSubject[0]!.size <= length) return 'max-bytes';
      }
    }
    const size =
      this.kind === 'memory' ? subject.length + length + 16 : 30 + subject.length + length;
    const seq = ++this.lastSeq;
    this.messages.push({ seq, subject, size });
    this.enforce();
    return seq;
  }

  enforce(): void {
    const l = this.limits;
    for (const subject of new Set(this.messages.map((m) => m.subject))) {
      const onSubject = this.of(subject);
      if (l.maxMsgsPerSubject > 0 && onSubject.length > l.maxMsgsPerSubject) {
        this.drop(onSubject.slice(0, onSubject.length - l.maxMsgsPerSubject).map((m) => m.seq));
      }
    }
    while (
      (l.maxMsgs > 0 && this.messages.length > l.maxMsgs) ||
      (l.maxBytes > 0 && this.bytes > l.maxBytes)
    ) {
      this.messages.shift();
    }
  }

  purge({ subject = '', seq = 0, keep = 0 }: PurgeOptions): number | string {
    if (seq > 0 && keep > 0) return 'bad-argument';
    // All subjects below a sequence is a compact: past the end, it moves the sequence on.
    const all = subject === '' || subject === '>';
    if (all && keep === 0) return this.compact(seq > 1 ? seq : 0);
    // All subjects, keep N: nats-server 2.9.10 keeps the N newest sequences (observed).
    if (all && keep < this.messages.length) return this.compact(this.lastSeq - keep + 1);
    const matching = this.messages.filter((m) => matches(m.subject, subject));
    if (keep >= matching.length && keep > 0) return 0;
    const below = matching.filter((m) => seq <= 1 || m.seq < seq);
    const doomed = keep > 0 ? below.slice(0, matching.length - keep) : below;
    return this.drop(doomed.map((m) => m.seq));
  }

  compact(seq: number): number {
    if (seq === 0 || seq > this.lastSeq) {
      const purged = this.messages.length;
      this.messages = [];
      if (seq > this.lastSeq) this.lastSeq = seq - 1;
      return purged;
    }
    return this.drop(this.messages.filter((m) => m.seq < seq).map((m) => m.seq));
  }

  truncate(seq: number): string | undefined {
    if (seq > this.lastSeq) return 'bad-argument';
    this.drop(this.messages.filter((m) => m.seq > seq).map((m) => m.seq));
    this.lastSeq = seq;
    return undefined;
  }

  apply(op: Op): unknown {
    switch (op.op) {
      case 'store':
        return this.store(op.subject, op.length);
      case 'remove':
        return this.drop([op.seq]) === 1;
      case 'purge':
        return this.purge(op.options);
      case 'compact':
        return this.compact(op.seq);
      case 'truncate':
        return this.truncate(op.seq);
      case 'limits':
        this.limits = op.limits;
        this.enforce();
        return undefined;
    }
  }
}

function applyToStore(store: MessageStore, op: Op): unknown {
  try {
    switch (op.op) {
      case 'store':
        return store.store(op.subject, undefined, new Uint8Array(op.length).fill(7)).seq;
      case 'remove':
        return store.remove(op.seq);
      case 'purge':
        return store.purge(op.options);
      case 'compact':
        return store.compact(op.seq);
      case 'truncate':
        store.truncate(op.seq);
        return undefined;
      case 'limits':
        store.updateLimits(op.limits);
        return undefined;
    }
  } catch (error) {
    return (error as { code: string }).code;
  }
}

const subjects = ['a.1', 'a.2', 'b.1', 'c'];
const filters = ['', '>', 'a.*', 'a.1', 'b.>', '*.1', 'zz'];
const seqArb = fc.integer({ min: 0, max: 24 });
const limitsArb = fc.record({
  maxMsgs: fc.integer({ min: 0, max: 8 }),
  maxBytes: fc.integer({ min: 0, max: 500 }),
  maxAge: fc.constant(0n),
  maxMsgSize: fc.constantFrom(0, 20, 40),
  maxMsgsPerSubject: fc.integer({ min: 0, max: 3 }),
  discard: fc.constantFrom('old' as const, 'new' as const),
  discardNewPerSubject: fc.boolean(),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('store' as const),
      subject: fc.constantFrom(...subjects),
      length: fc.integer({ min: 0, max: 30 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), seq: seqArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('purge' as const),
      options: fc.record(
        {
          subject: fc.constantFrom(...filters),
          seq: seqArb,
          keep: fc.integer({ min: 0, max: 4 }),
        },
        { requiredKeys: [] },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('compact' as const), seq: seqArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const), seq: seqArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('limits' as const), limits: limitsArb }) },
);

function expectSameState(store: MessageStore, model: Model, probes: [number, string][]): void {
  const firstSeq = model.firstSeq;
  const present = new Set(model.messages.map((m) => m.seq));
  const deleted: number[] = [];
  if (model.messages.length > 0) {
    for (let seq = firstSeq; seq <= model.lastSeq; seq++) if (!present.has(seq)) deleted.push(seq);
  }
  const state = store.state({ deleted: true });
  expect({
    messages: state.messages,
    bytes: state.bytes,
    firstSeq: state.firstSeq,
    lastSeq: state.lastSeq,
    numSubjects: state.numSubjects,
    numDeleted: state.numDeleted,
    deleted: state.deleted,
  }).toEqual({
    messages: model.messages.length,
    bytes: model.bytes,
    firstSeq,
    lastSeq: model.lastSeq,
    numSubjects: new Set(model.messages.map((m) => m.subject)).size,
    numDeleted: deleted.length,
    deleted,
  });
  const perSubject = new Map<string, { messages: number; first: number; last: number }>();
  for (const m of model.messages) {
    const s = perSubject.get(m.subject);
    if (s) Object.assign(s, { messages: s.messages + 1, last: m.seq });
    else perSubject.set(m.subject, { messages: 1, first: m.seq, last: m.seq });
  }
  expect(store.subjectsState('')).toEqual(perSubject);
  for (const [from, filter] of probes) {
    const pending = model.messages.filter((m) => m.seq >= from && matches(m.subject, filter));
    expect(store.numPending(from, filter, false)).toBe(pending.length);
    expect(store.loadNext(filter, from)?.seq).toBe(pending[0]?.seq);
    const lastPerSubject = new Set(pending.map((m) => m.subject)).size;
    expect(store.numPending(from, filter, true)).toBe(lastPerSubject);
  }
}

describe.each(storeKinds)('$kind store against a model', (kind: StoreKind) => {
  it('keeps the state of the model through random operations', async () => {
    await fc.assert(
      fc.asyncProperty(
        limitsArb,
        fc.array(opArb, { minLength: 1, maxLength: 50, size: 'max' }),
        fc.array(fc.tuple(seqArb, fc.constantFrom(...filters)), { minLength: 1, maxLength: 4 }),
        async (initial, ops, probes) => {
          const dir = temporaryDirectory();
          let store = kind.open(dir.path, initial);
          const model = new Model(kind.kind, limits(initial));
          try {
            for (const op of ops) {
              expect(applyToStore(store, op), fc.stringify(op)).toEqual(model.apply(op));
              expectSameState(store, model, probes);
            }
            if (kind.kind === 'sqlite') {
              // Closed first: the store's connection holds its file's locks until then.
              await store.close();
              store = kind.open(dir.path, model.limits);
              expectSameState(store, model, probes);
            }
          } finally {
            await store.close();
            dir.remove();
          }
        },
      ),
      { numRuns: kind.kind === 'memory' ? 150 : 40 },
    );
  });
});
