import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointWorker } from '../src/jetstream/store/checkpoint-worker.js';

/** A WAL database at `path` with rows in its WAL, held open as a stream holds its own. */
function writer(path: string, rows: number): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS t (v BLOB)');
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(512, i));
  return db;
}

const walSize = (path: string) => statSync(`${path}-wal`).size;

describe('the checkpoint worker', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'slipstream-checkpoint-worker-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds nothing of a database once it answered: a new file at the same path is the one it empties', async () => {
    const path = join(dir, 'messages.db');
    const first = writer(path, 200);
    expect(walSize(path)).toBeGreaterThan(0);
    expect(await checkpointWorker.truncate(path)).toBeUndefined();
    expect(walSize(path)).toBe(0);
    first.close();

    // The stream is deleted and another of the same name created in its place.
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    const second = writer(path, 200);
    try {
      expect(walSize(path)).toBeGreaterThan(0);
      expect(await checkpointWorker.truncate(path)).toBeUndefined();
      expect(walSize(path)).toBe(0);
      expect(second.prepare('SELECT count(*) FROM t').pluck().get()).toBe(200);
    } finally {
      second.close();
    }
  });
});
