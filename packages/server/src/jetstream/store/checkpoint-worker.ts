import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code, as a CommonJS string, so it runs the same from src (tests) and dist. It
 * loads better-sqlite3 from the path this package resolves and keeps one connection per
 * database it was asked about. `busy_timeout` 0: should the stream write meanwhile, the
 * checkpoint copies what it can and leaves the WAL as it is instead of waiting.
 */
const workerSource = (sqlitePath: string) => `
const { parentPort } = require('node:worker_threads');
const Database = require(${JSON.stringify(sqlitePath)});
const connections = new Map();
parentPort.on('message', ({ id, path, release }) => {
  let error;
  try {
    let db = connections.get(path);
    if (release) {
      connections.delete(path);
      db?.close();
    } else {
      if (!db) {
        db = new Database(path, { fileMustExist: true, timeout: 0 });
        connections.set(path, db);
      }
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
  } catch (cause) {
    error = String(cause?.message ?? cause);
    connections.get(path)?.close();
    connections.delete(path);
  }
  parentPort.postMessage({ id, error });
});
`;

/**
 * Empties the WAL of an idle stream on a thread of its own. A WAL keeps its size once grown
 * (about 4 MiB, SQLite's automatic checkpoint at 1,000 pages), which for a small stream is
 * more disk than its messages; a TRUNCATE checkpoint copies what is left into the database,
 * syncs it and cuts the WAL to nothing, but costs a sync or two, which on the event loop would
 * hold up every connection. The worker starts on the first request and does not keep the
 * process alive; a checkpoint that fails (full disk, damage) leaves the data in the WAL.
 */
class CheckpointWorker {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, (error: string | undefined) => void>();
  #nextId = 0;

  /** Checkpoints `path`'s WAL into it and truncates the WAL; resolves to an error message, if any. */
  truncate(path: string): Promise<string | undefined> {
    return this.#request(path, false);
  }

  /** Closes the worker's connection to `path`, before the stream's own closes (or the file goes). */
  async release(path: string): Promise<void> {
    if (this.#worker) await this.#request(path, true);
  }

  #request(path: string, release: boolean): Promise<string | undefined> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      worker.postMessage({ id, path, release });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const sqlitePath = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(workerSource(sqlitePath), { eval: true });
    worker.unref();
    worker.on('message', ({ id, error }: { id: number; error: string | undefined }) => {
      this.#pending.get(id)?.(error);
      this.#pending.delete(id);
    });
    // Should the worker die, its connections are gone with it: requests in flight end, the next starts anew.
    const ended = () => {
      this.#worker = undefined;
      for (const resolve of this.#pending.values()) resolve('checkpoint worker ended');
      this.#pending.clear();
    };
    worker.on('error', ended);
    worker.on('exit', ended);
    this.#worker = worker;
    return worker;
  }
}

/** One per process: the idle checkpoints of every stream in it share the thread. */
export const checkpointWorker = new CheckpointWorker();
