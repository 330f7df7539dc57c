/**
 * The physical limit of the file store: a bare better-sqlite3 loop, nothing of a server around
 * it, inserting the rows the SQLite store writes for a message (sequence, time, subject,
 * payload, size, CRC-32 checksum; the same table and subject index) in WAL mode, one
 * transaction per batch. (The store saves the last sequence only when a removal needs it.) Our server's
 * msgs/s divided by this is the share of the store's limit it reaches.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import Database from 'better-sqlite3';
import { repeatFor } from './harness/timing.js';

/** synchronous=FULL syncs the WAL at every commit (our `always`); NORMAL leaves it to checkpoints (lazy). */
export type Synchronous = 'FULL' | 'NORMAL';

export interface SqliteLoop {
  /** Inserts batches of `batch` rows for at least `seconds`; rows per second. */
  measure(batch: number, seconds: number): number;
  close(): void;
}

const SUBJECT = 'bench.js.limit';

export function openSqliteLoop(synchronous: Synchronous, payloadSize: number): SqliteLoop {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sqlite-'));
  const db = new Database(join(dir, 'stream.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec(`
    CREATE TABLE messages (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, subject TEXT NOT NULL,
      headers BLOB, payload BLOB NOT NULL, size INTEGER NOT NULL, checksum INTEGER NOT NULL);
    CREATE INDEX messages_by_subject ON messages (subject, seq);
  `);
  const insert = db.prepare(
    'INSERT INTO messages (seq, time, subject, headers, payload, size, checksum) VALUES (?, ?, ?, NULL, ?, ?, ?)',
  );
  const payload = new Uint8Array(payloadSize).fill(0x5a);
  const position = Buffer.alloc(16);
  let seq = 0;
  let time = 0n;

  const insertBatch = (batch: number) => {
    db.exec('BEGIN');
    for (let i = 0; i < batch; i++) {
      seq++;
      time = process.hrtime.bigint();
      position.writeDoubleBE(seq, 0);
      position.writeBigInt64BE(time, 8);
      const checksum = crc32(payload, crc32(SUBJECT, crc32(position)));
      insert.run(seq, time, SUBJECT, payload, SUBJECT.length + payloadSize, checksum);
    }
    db.exec('COMMIT');
  };

  return {
    measure(batch, seconds) {
      const { steps, seconds: elapsed } = repeatFor(seconds, () => insertBatch(batch));
      return (steps * batch) / elapsed;
    },
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
