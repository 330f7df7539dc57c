/**
 * MessageStore.atomically, what an atomic batch's commit stores through: in the SQLite store one
 * unit of the transaction (a savepoint), undone whole when its work throws, even after part of it
 * was stored, and never half there after reopening; what the transaction held before it stays.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/jetstream/store/sqlite-store.js';
import {
  bytes,
  databasePath,
  limits,
  STREAM,
  temporaryDirectory,
} from './jetstream-store-kinds.js';

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function open(path: string) {
  return openSqliteStore({ name: STREAM, path: databasePath(path), limits: limits() });
}

describe('SqliteStore atomically', () => {
  it('undoes everything its work stored when the work throws, and keeps what came before', async () => {
    const dir = temporaryDirectory();
    dirs.push(dir);
    const store = open(dir.path);
    // Same turn, same open transaction: stored before the unit, kept after its rollback.
    store.store('before', undefined, bytes('kept'));
    expect(() =>
      store.atomically(() => {
        store.store('batch', undefined, bytes('1'));
        store.store('batch', undefined, bytes('2'));
        throw new Error('third message refused');
      }),
    ).toThrow('third message refused');
    expect(store.state()).toMatchObject({ messages: 1, lastSeq: 1 });
    expect(store.loadLast('batch')).toBeUndefined();
    await store.whenDurable();
    // A store refusal inside (discard new at its limit) rolls it back the same way.
    store.updateLimits(limits({ maxMsgs: 3, discard: 'new' }));
    expect(() =>
      store.atomically(() => {
        for (const n of ['1', '2', '3']) store.store('batch', undefined, bytes(n));
      }),
    ).toThrow('maximum messages exceeded');
    expect(store.state()).toMatchObject({ messages: 1, lastSeq: 1 });
    store.atomically(() => {
      store.store('batch', undefined, bytes('a'));
      store.store('batch', undefined, bytes('b'));
    });
    await store.whenDurable();
    await store.close();

    const reopened = open(dir.path);
    expect(reopened.state()).toMatchObject({ messages: 3, firstSeq: 1, lastSeq: 3 });
    expect(Buffer.from(reopened.load(2).payload).toString()).toBe('a');
    expect(reopened.load(1).subject).toBe('before');
    await reopened.close();
  });
});
