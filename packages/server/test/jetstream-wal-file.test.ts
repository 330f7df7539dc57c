/**
 * The WAL's fill ahead of SQLite's writes (wal-file.ts) as a store in `sync: 'always'` mode
 * drives it: the file's size is looked up (a stat, which made the sync after it slower) only
 * when SQLite's frames near the end of the zeros or the WAL started over, and a WAL cut by the
 * idle checkpoint is filled again from its first commit.
 */
import type * as fs from 'node:fs';
import { readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageStore } from '../src/jetstream/store/message-store.js';
import { openSqliteStore } from '../src/jetstream/store/sqlite-store.js';
import {
  bytes,
  databasePath,
  limits,
  STREAM,
  temporaryDirectory,
} from './jetstream-store-kinds.js';

// Counts the stats the store makes through node:fs (the WAL's size look-ups are its only ones).
const stats = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  const fstatSync = ((...args: Parameters<typeof actual.fstatSync>) => {
    stats.count++;
    return actual.fstatSync(...args);
  }) as typeof actual.fstatSync;
  return { ...actual, default: { ...actual, fstatSync }, fstatSync };
});

describe('WAL fill', () => {
  let dir: ReturnType<typeof temporaryDirectory>;
  let store: MessageStore | undefined;

  beforeEach(() => {
    dir = temporaryDirectory();
    store = openSqliteStore({ name: STREAM, path: databasePath(dir.path), limits: limits() });
  });
  afterEach(async () => {
    await store?.close();
    dir.remove();
  });

  it('looks up the WAL size only when the frames near the end of the zeros, not per commit', async () => {
    const s = store!;
    s.store('a', undefined, bytes('first'));
    await s.whenDurable();
    stats.count = 0;
    for (let i = 0; i < 200; i++) {
      s.store('a', undefined, bytes(`message ${i}`));
      await s.whenDurable();
    }
    // 200 commits of two or three frames each: about 2 MB of WAL, filled in doubling
    // stretches, each fill one look-up (a stat per commit before).
    expect(stats.count).toBeLessThanOrEqual(20);
    expect(stats.count).toBeGreaterThan(0);
  });

  it('keeps the zeros ahead of every commit, and fills again a WAL the idle checkpoint cut', async () => {
    const s = store!;
    const wal = `${databasePath(dir.path)}-wal`;
    for (let i = 0; i < 100; i++) {
      s.store('a', undefined, bytes(`message ${i}`));
      await s.whenDurable();
      // SQLite's last frame (the wal-index header's mxFrame, little-endian here) and the next
      // commit's two or three frames are inside the file: that commit overwrites zeros.
      const frames = readFileSync(`${databasePath(dir.path)}-shm`).readUInt32LE(16);
      expect(statSync(wal).size).toBeGreaterThanOrEqual(32 + (frames + 3) * 4120);
    }
    await vi.waitFor(() => expect(statSync(wal).size).toBe(0), { timeout: 5000, interval: 20 });
    s.store('a', undefined, bytes('after'));
    await s.whenDurable();
    // Started over in a cut file: filled ahead again, a little.
    const size = statSync(wal).size;
    expect(size).toBeGreaterThanOrEqual(32 * 1024);
    expect(size).toBeLessThan(64 * 1024);
  });
});
