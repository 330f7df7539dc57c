/**
 * What a snapshot copies and how its archive body (the records between `meta` and `end`) is
 * read from the copy. A file stream's copy is one SQLite online backup of its database, sent as
 * the file's bytes (`database` records): no read per message, as nats-server sends its block
 * files. A memory stream's copy is a store of its own, sent as `messages` records (its consumers
 * live only in the running stream: they are not in its snapshot).
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { openMemoryStore } from '../store/memory-store.js';
import { type MessageStore, NO_LIMITS } from '../store/message-store.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import type { Stream } from '../stream/stream.js';
import { messagesFile } from '../stream/stream-files.js';
import { encodeDatabase, encodeMessages } from './snapshot-archive.js';
import { replayAll } from './store-replay.js';

export interface SnapshotOptions {
  /** Include the consumers the stream's store keeps (not `no_consumers`). */
  consumers: boolean;
  /** Check every message's checksum before answering (`jsck`). */
  check: boolean;
}

/** The counts an archive's `end` record states. */
export interface BodyCounts {
  messages: number;
  consumers: number;
  database: number;
}

export interface SnapshotContent {
  /** The copy's last sequence and its time. */
  readonly lastSeq: number;
  readonly lastTime: bigint;
  /** The encoded records of the archive's body; returns what the `end` record counts. */
  body(): Generator<Buffer, BodyCounts>;
  /** Releases the copy. */
  close(): Promise<void>;
}

/** How many bytes of the database file a `database` record carries. */
const DATABASE_PIECE = 128 * 1024;

/** A file stream's database, backed up into `dir` (which the caller removes). */
export async function databaseContent(
  stream: Stream,
  dir: string,
  options: SnapshotOptions,
): Promise<SnapshotContent> {
  mkdirSync(dir, { recursive: true });
  const path = messagesFile(dir);
  // Read before the copy, which therefore holds at least this much.
  const { lastSeq, lastTime } = stream.store.state();
  // The consumers write their state lazily: what they did so far goes into the copy.
  stream.consumers.saveStates();
  await stream.store.backup!(path);
  if (options.check || !options.consumers) {
    const copy = openSqliteStore({ name: stream.name, path, limits: NO_LIMITS });
    try {
      if (options.check) checkUndamaged(copy);
      if (!options.consumers) {
        for (const { name } of copy.consumers?.list() ?? []) copy.consumers!.remove(name);
      }
      await copy.whenDurable();
    } finally {
      await copy.close();
    }
    // Closing folds the write-ahead log into the file; only the file is sent.
    const wal = `${path}-wal`;
    if (existsSync(wal) && statSync(wal).size > 0)
      throw new Error('the copy kept its write-ahead log');
  }
  return {
    lastSeq,
    lastTime,
    *body() {
      const fd = openSync(path, 'r');
      try {
        const read = (target: Buffer) => readSync(fd, target, 0, target.length, null);
        const database = yield* encodeDatabase(read, DATABASE_PIECE);
        return { messages: 0, consumers: 0, database };
      } finally {
        closeSync(fd);
      }
    },
    close: async () => {},
  };
}

/** A memory stream's messages, copied at once into a store of their own. */
export function storeContent(stream: Stream, options: SnapshotOptions): SnapshotContent {
  const copy = openMemoryStore({ name: stream.name, limits: NO_LIMITS });
  replayAll(stream.store, copy);
  if (options.check) checkUndamaged(copy);
  const { lastSeq, lastTime } = copy.state();
  return {
    lastSeq,
    lastTime,
    *body() {
      let messages = 0;
      yield* encodeMessages(
        (function* () {
          for (let m = copy.loadNext('', 0); m; m = copy.loadNext('', m.seq + 1)) {
            messages++;
            yield m;
          }
        })(),
      );
      return { messages, consumers: 0, database: 0 };
    },
    close: () => copy.close(),
  };
}

function checkUndamaged(copy: MessageStore): void {
  const damaged = copy.findDamaged();
  if (damaged.length > 0) {
    throw new Error(`${damaged.length} damaged messages (first at sequence ${damaged[0]})`);
  }
}
