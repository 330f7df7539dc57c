import { createRequire } from 'node:module';
import { RequestWorker } from '../../request-worker.js';

/**
 * The worker's code, as a CommonJS string, so it runs the same from src (tests) and dist. It
 * loads better-sqlite3 from the path this package resolves and opens the database for each
 * checkpoint, closing it after: a connection kept per stream held its page cache and WAL index
 * (23 MiB for 100 streams). The copying and its syncs happen in a PASSIVE checkpoint, which
 * never blocks the stream's writes; the TRUNCATE after it finds nothing left to copy, so it
 * holds SQLite's write lock (which a write of the stream would wait for, on the event loop)
 * only to cut the file. `busy_timeout` 0: should the stream be writing, it leaves the WAL.
 */
const workerSource = (sqlitePath: string) => `
const { parentPort } = require('node:worker_threads');
const Database = require(${JSON.stringify(sqlitePath)});
parentPort.on('message', ({ id, path }) => {
  let answer;
  let db;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 0 });
    db.pragma('wal_checkpoint(PASSIVE)');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (cause) {
    answer = String(cause?.message ?? cause);
  } finally {
    db?.close();
  }
  parentPort.postMessage({ id, answer });
});
`;

/**
 * Empties the WAL of an idle stream on a thread of its own. A WAL keeps its size once grown
 * (about 4 MiB, SQLite's automatic checkpoint at 1,000 pages), which for a small stream is
 * more disk than its messages; a TRUNCATE checkpoint copies what is left into the database,
 * syncs it and cuts the WAL to nothing, but costs a sync or two, which on the event loop would
 * hold up every connection. A checkpoint that fails (full disk, damage) leaves the data in the
 * WAL; the answer is its error message, if any. Once the answer is in, the worker holds nothing
 * of the database: the stream may close and remove its files.
 */
const worker = new RequestWorker<{ path: string }, string | undefined>(
  () => workerSource(createRequire(import.meta.url).resolve('better-sqlite3')),
  'checkpoint worker ended',
);

/** One per process: the idle checkpoints of every stream in it share the thread. */
export const checkpointWorker = {
  /** Checkpoints `path`'s WAL into it and truncates the WAL. */
  truncate: (path: string) => worker.request({ path }),
};
