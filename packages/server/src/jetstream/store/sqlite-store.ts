/**
 * File storage: the store engine over one SQLite database per stream (better-sqlite3, WAL).
 * Messages are rows keyed by sequence with an index on (subject, seq); each row carries a
 * CRC-32 of its sequence, time, subject, headers and payload, checked on every read, so a
 * damaged message is reported (StoreError 'corrupt' naming stream and sequence) and never
 * served. Nothing is ever deleted because it looks damaged.
 *
 * Writes of one event-loop turn share one transaction (commit-group.ts). COMMIT only writes the
 * WAL (synchronous=NORMAL), which survives a killed process. With `sync: 'always'` (the
 * default) each COMMIT is then followed by an fdatasync of the WAL on libuv's thread pool, so the
 * event loop keeps taking publishes while the disk works (a commit of one publish alone is synced
 * on the event loop, which saves the thread pool's hop), and `whenDurable()` means on disk
 * (a commit of consumer ack state alone is synced with the next one, or when waited for); the
 * WAL is kept filled with zeros ahead of SQLite's writes, so that sync overwrites (wal-file.ts).
 * With `sync: <ms>` a checkpoint every interval syncs it instead: nats-server's lazy trade-off
 * for an OS crash. (SQLite syncs the WAL before, and the database after, every checkpoint.)
 * SQLite's automatic checkpoint (every 1,000 frames, about 300 KV puts) runs inside a COMMIT on
 * the event loop, and its sync of the WAL was most of its 5 to 10 ms: in lazy mode the WAL is
 * also synced on the thread pool every LAZY_SYNC_COMMITS commits, waited for by nobody, so that
 * sync finds little left to write.
 *
 * A stream idle for IDLE_CHECKPOINT_MS has its WAL emptied and cut to nothing off the event
 * loop (checkpoint-worker.ts), so at rest a stream takes the disk of its rows only.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { checkpointWorker } from './checkpoint-worker.js';
import type { Clock } from './clock.js';
import { breakSeal, sealClosedStore } from './close-seal.js';
import { CommitGroup } from './commit-group.js';
import { LastSequenceFile, lastSequencePath } from './last-sequence-file.js';
import type { LogEntry, LogSummary, MessageLog, RemovedSubject } from './message-log.js';
import {
  type MessageStore,
  type StoredMessage,
  StoreError,
  type StoreLimits,
  type SubjectState,
} from './message-store.js';
import { decodePayload, encodePayload } from './payload-codec.js';
import { type AheadRow, readEntries, withBodies } from './read-ahead-entries.js';
import { SqliteConsumerStore } from './sqlite-consumer-store.js';
import { sqlite } from './sqlite-module.js';
import {
  addEncodingColumn,
  isDamage,
  type MessageRow,
  MessageStatements,
  messageChecksum,
  SCAN_BATCH,
  SCHEMA,
  sqliteCode,
} from './sqlite-schema.js';
import { StoreEngine } from './store-engine.js';
import { WalFile } from './wal-file.js';

export interface SqliteStoreOptions {
  /** The stream's name, used in errors. */
  name: string;
  /** The database file; its directory is created if missing. */
  path: string;
  limits: StoreLimits;
  /** 'always' (default): synced before durable. A number: lazy, synced every that many ms. */
  sync?: 'always' | number;
  /** SQLite's max_page_count: the file never grows past it; writes beyond fail as on a full disk. */
  maxPages?: number;
  clock?: Clock;
  /** Told of every damaged message or page a read finds, before its 'corrupt' error is thrown. */
  onDamage?: (error: StoreError) => void;
  /**
   * Lazy mode: told when a sync that nobody waits for fails (the background sync of the WAL, the
   * interval's checkpoint): what was acknowledged since the last sync may not be on the disk.
   */
  onSyncFailure?: (error: Error) => void;
  /**
   * The counts a clean close sealed (close-seal.ts), found by the caller to match the file: the
   * first summary takes them instead of counting every row.
   */
  sealed?: LogSummary;
}

export function openSqliteStore(options: SqliteStoreOptions): MessageStore {
  const log = new SqliteLog(options);
  const engine = new StoreEngine(log, options);
  log.lostWrites = () => engine.writesLost();
  return Object.assign(engine, {
    consumers: log.consumers,
    backup: (path: string) => log.backup(path),
    checkStructure: () => log.checkStructure(),
  });
}

/**
 * The stream's connection keeps SQLite's file locks from one transaction to the next instead of
 * taking and dropping them in each: that was six fcntl calls a commit, about 3 µs of CPU (a tenth
 * of a KV put's time in the kernel). The idle checkpoint's connection (checkpoint-worker.ts) is
 * the only other one, and the locks are given up for it (`holdLocks`). The WAL was entered
 * with normal locking, so its index stays in shared memory and the switch can go both ways.
 */
const HOLD_LOCKS = 'locking_mode = EXCLUSIVE';

/** No commit for this long and the WAL is checkpointed and truncated (checkpoint-worker.ts). */
const IDLE_CHECKPOINT_MS = 100;

/**
 * Lazy mode: the WAL is synced in the background after this many commits (see above). Every 32
 * cost one-at-a-time publishes about 10 µs more CPU each (the syncs' own work) for little less
 * checkpoint time than 128 (store-only: 46 µs CPU a publish without, 51 with 128, 58 with 32).
 */
const LAZY_SYNC_COMMITS = 128;

/**
 * What a WAL is cut back to when it starts over after a checkpoint: the size SQLite's
 * automatic checkpoint (1,000 pages) lets it reach, so one huge transaction (a purge of
 * millions) does not leave a huge file behind.
 */
const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Removals by max_msgs_per_subject (a KV put's replaced value) are deleted in batches of this
 * many, or before the next query, any other removal, a change of limits, idle checkpoint, backup
 * or close: deleting one old row per put wrote its table page into the WAL each time (a third
 * of a KV put's frames); a batch of neighbouring rows writes those pages once. A process killed
 * meanwhile loses only deletions that reopening the store redoes (message-log.ts's `remove`).
 */
const DEFERRED_REMOVALS = 64;

/**
 * Rows read ahead for a sequential reader: at most this many, and about this many payload bytes
 * (each read asks for the rows the previous one's sizes say fit). The first read, with no sizes
 * known yet, asks for a few.
 */
const READ_AHEAD_ROWS = 256;
const READ_AHEAD_BYTES = 1024 * 1024;
const FIRST_READ_AHEAD_ROWS = 16;

/**
 * Entries of the messages appended last kept in memory: a KV put removes the value its key had,
 * usually written not long before, and finding that value's subject and size was a query per put.
 */
const RECENT_ENTRIES = 256;

/**
 * Every message with a sequence in [from, to], read in one query: a consumer or a mirror reads
 * forward one message at a time, and a point query per message (plus one to find the next)
 * was most of a consumer's delivery cost. A sequence in the range without a row has no message.
 * The engine's removals of the oldest messages (a KV put replacing a key's value, limits)
 * find the removed message's entry and the new first one's here too.
 */
interface ReadAhead {
  from: number;
  to: number;
  rows: Map<number, AheadRow>;
}

class SqliteLog implements MessageLog {
  readonly kind = 'file';
  /** Set by the store: the open transaction was rolled back, so recount from the file. */
  lostWrites: () => void = () => {};
  private ahead: ReadAhead | undefined;
  /** The entries of the last RECENT_ENTRIES appends still stored, by sequence. */
  private readonly recent = new Map<number, LogEntry>();
  /** Their sequences in a ring, the oldest at `recentNext`, so the next append evicts it. */
  private readonly recentSeqs: number[] = [];
  private recentNext = 0;
  /** How many rows the next read-ahead asks for. */
  private aheadRows = FIRST_READ_AHEAD_ROWS;
  private readonly name: string;
  private readonly path: string;
  private readonly onDamage: ((error: StoreError) => void) | undefined;
  private readonly onSyncFailure: ((error: Error) => void) | undefined;
  private readonly db: Database.Database;
  private readonly group: CommitGroup;
  private readonly syncTimer: NodeJS.Timeout | undefined;
  private lastSeq = 0;
  private lastTime = 0n;
  private checkpointAfterCommit = false;
  /**
   * The last sequence and time are saved only by a commit that needs them: while the newest
   * message is in the table its row says both, and only a removal (or an explicit setLast)
   * can take that row away. One page fewer to write per commit.
   */
  private lastNeedsSaving = false;
  /** Sequences removed by max_msgs_per_subject, not yet deleted from the table (DEFERRED_REMOVALS). */
  private deferredRemovals: number[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  /** The idle checkpoint in flight, awaited by close. */
  private idleCheckpoint: Promise<unknown> | undefined;
  /** The WAL file: each commit syncs it in `sync: 'always'` mode, every LAZY_SYNC_COMMITS otherwise. */
  private readonly wal: WalFile;
  /** The last sequence kept outside the database, for a start that finds it damaged. */
  private readonly lastSequence: LastSequenceFile;
  private readonly lazy: boolean;
  /** Lazy mode: commits since the last background sync of the WAL started. */
  private commitsSinceSync = 0;
  /** Lazy mode: the background sync in flight, awaited by close. */
  private lazySync: Promise<void> | undefined;
  private closed = false;
  /** Compress the payloads appended from now on (the stream's `compression`). */
  private compressing = false;

  private readonly sql: MessageStatements;
  readonly consumers: SqliteConsumerStore;
  /** The counts the last clean close saved (close-seal.ts), for the first summary only. */
  private sealed: LogSummary | undefined;

  constructor(options: SqliteStoreOptions) {
    this.name = options.name;
    this.path = options.path;
    this.onDamage = options.onDamage;
    this.onSyncFailure = options.onSyncFailure;
    mkdirSync(dirname(options.path), { recursive: true });
    this.sealed = options.sealed;
    breakSeal(options.path);
    this.db = this.openDatabase(options);
    this.wal = new WalFile(`${options.path}-wal`, WAL_SIZE_LIMIT_BYTES);
    this.lastSequence = new LastSequenceFile(lastSequencePath(dirname(options.path)));
    this.lazy = typeof options.sync === 'number';
    const db = this.db;
    this.sql = new MessageStatements(db);
    this.consumers = new SqliteConsumerStore(db, (write, synced) =>
      this.group.write(write, synced),
    );
    this.group = new CommitGroup(db, {
      beforeCommit: () => {
        if (this.lastNeedsSaving) this.sql.saveSequenceState.run(this.lastSeq, this.lastTime);
        this.lastNeedsSaving = false;
        this.consumers.writeChangedStates();
      },
      afterCommit: () => {
        if (this.checkpointAfterCommit) this.runCheckpoint();
        if (this.lazy) {
          // Acknowledged at the commit: recorded now.
          this.recordLastOrReport(this.lastSeq, this.lastTime);
          this.syncInBackground();
        }
        this.idleTimer ??= setTimeout(() => this.checkpointWhenIdle(), IDLE_CHECKPOINT_MS);
        this.idleTimer.unref();
        this.idleTimer.refresh();
      },
      lostWrites: () => this.forgetUnwritten(),
      translate: (error) => this.translate(error),
      ...(this.lazy ? {} : { sync: () => this.syncCommit(), syncNow: () => this.syncCommitNow() }),
    });
    if (typeof options.sync === 'number') {
      this.syncTimer = setInterval(() => this.syncNow(), options.sync);
      this.syncTimer.unref();
    }
  }

  private openDatabase(options: SqliteStoreOptions): Database.Database {
    let db: Database.Database | undefined;
    try {
      const Sqlite = sqlite();
      db = new Sqlite(options.path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
      db.pragma('cell_size_check = ON');
      if (options.maxPages !== undefined) db.pragma(`max_page_count = ${options.maxPages}`);
      const created = db.prepare('SELECT count(*) FROM sqlite_master').pluck().get() === 0;
      db.exec(SCHEMA);
      addEncodingColumn(db);
      // A new store's tables go to the disk before its stream is answered as created: in the
      // WAL alone they would wait for the first synced publish (or lazy mode's interval), and a
      // power loss before it left a file without tables, which does not open. A checkpoint
      // syncs the WAL, then the database file.
      if (created) db.pragma('wal_checkpoint(TRUNCATE)');
      db.pragma(HOLD_LOCKS);
      return db;
    } catch (error) {
      db?.close();
      throw this.translate(error);
    }
  }

  append(message: StoredMessage, size: number): void {
    const checksum = messageChecksum(
      message.seq,
      message.time,
      message.subject,
      message.headers,
      message.payload,
    );
    const stored = encodePayload(message.payload, this.compressing);
    this.group.write(() =>
      this.sql.insert.run(
        message.seq,
        message.time,
        message.subject,
        message.headers ?? null,
        stored.bytes,
        size,
        checksum,
        stored.encoding,
      ),
    );
    this.lastSeq = message.seq;
    this.lastTime = message.time;
    const evicted = this.recentSeqs[this.recentNext];
    if (evicted !== undefined) this.recent.delete(evicted);
    this.recentSeqs[this.recentNext] = message.seq;
    this.recentNext = (this.recentNext + 1) % RECENT_ENTRIES;
    this.recent.set(message.seq, { subject: message.subject, time: message.time, size });
  }

  /** Writes were rolled back: what was read ahead or deferred may be wrong, the counts too. */
  private forgetUnwritten(): void {
    this.ahead = undefined;
    this.recent.clear();
    // Rolled back with the rest: the rows are there again, and the store removes them again.
    this.deferredRemovals = [];
    this.lostWrites();
  }

  compress(enabled: boolean): void {
    this.compressing = enabled;
  }

  read(seq: number): StoredMessage | undefined {
    const ahead = this.ahead;
    const row =
      ahead && seq >= ahead.from && seq <= ahead.to
        ? ahead.rows.get(seq)
        : this.lookUp(seq, () => this.sql.selectMessage.get(seq) as MessageRow | undefined);
    if (!row) return undefined;
    let payload: Buffer | undefined;
    try {
      payload = decodePayload(row.payload, Number(row.encoding));
    } catch {
      // Damaged compressed bytes: reported below as any other damage.
    }
    const message: StoredMessage = {
      subject: row.subject,
      seq,
      time: row.time,
      headers: row.headers ?? undefined,
      payload: payload ?? row.payload,
    };
    const expected = messageChecksum(seq, row.time, row.subject, message.headers, message.payload);
    if (!payload || expected !== Number(row.checksum)) {
      throw this.damaged(
        new StoreError(
          'corrupt',
          `stream "${this.name}" message ${seq} is damaged (checksum mismatch)`,
          this.name,
          seq,
        ),
      );
    }
    return message;
  }

  entry(seq: number): LogEntry | undefined {
    const ahead = this.ahead;
    if (ahead && seq >= ahead.from && seq <= ahead.to) {
      const row = ahead.rows.get(seq);
      return row && { subject: row.subject, time: row.time, size: Number(row.size) };
    }
    const recent = this.recent.get(seq);
    if (recent) return recent;
    const row = this.lookUp(
      seq,
      () =>
        this.sql.selectEntry.get(seq) as
          | { subject: string; time: bigint; size: bigint }
          | undefined,
    );
    return row && { subject: row.subject, time: row.time, size: Number(row.size) };
  }

  remove(seq: number, erase: boolean, bySubjectLimit = false): void {
    this.ahead?.rows.delete(seq);
    this.recent.delete(seq);
    // Only the newest row says the last sequence and time: removing an older one (a KV put
    // replacing a key's previous value) leaves them where they are.
    if (seq === this.lastSeq) this.lastNeedsSaving = true;
    if (bySubjectLimit) {
      this.deferredRemovals.push(seq);
      if (this.deferredRemovals.length >= DEFERRED_REMOVALS) this.removeDeferred();
      return;
    }
    // In the same transaction: no state without the waiting deletions and with this one.
    this.removeDeferred();
    this.group.write(() => {
      if (!erase) {
        this.sql.deleteOne.run(seq);
        return;
      }
      // secure_delete zeroes the freed row in its page; the checkpoint after the commit
      // copies that page over the file and empties the WAL that still held the row.
      this.db.pragma('secure_delete = ON');
      try {
        this.sql.deleteOne.run(seq);
      } finally {
        this.db.pragma('secure_delete = OFF');
      }
      this.checkpointAfterCommit = true;
    });
  }

  removeRange(from: number, to: number): RemovedSubject[] {
    this.removeDeferred();
    this.ahead = undefined;
    this.recent.clear();
    this.lastNeedsSaving = true;
    return this.group.write(() => {
      const removed = (
        this.sql.tallyRange.all(from, to) as { subject: string; messages: number; bytes: number }[]
      ).map((row) => ({ subject: row.subject, messages: row.messages, bytes: row.bytes }));
      this.sql.deleteRange.run(from, to);
      return removed;
    });
  }

  removeAll(): void {
    this.deferredRemovals = [];
    this.ahead = undefined;
    this.recent.clear();
    this.lastNeedsSaving = true;
    this.group.write(() => this.db.exec('DELETE FROM messages'));
  }

  /** Answered from the rows read ahead when they cover it; reading ahead again past them. */
  nextSeq(after: number): number | undefined {
    const ahead = this.ahead;
    if (ahead && after >= ahead.from - 1 && after < ahead.to) {
      for (let seq = after + 1; seq <= ahead.to; seq++) if (ahead.rows.has(seq)) return seq;
    }
    return this.readAhead(after + 1);
  }

  /** Reads the rows from `from` on into the read-ahead; the first one's sequence, if any. */
  private readAhead(from: number): number | undefined {
    const read = this.query(() => {
      const entries = this.sql.selectAheadEntries.get(from, this.aheadRows) as Buffer | null;
      if (!entries) return undefined;
      const found = readEntries(entries);
      const to = found[found.length - 1]!.seq;
      return { found, to, bodies: this.sql.selectAheadBodies.get(from, to) as Buffer };
    });
    if (!read) return undefined;
    const { found, to, bodies } = read;
    const rows = withBodies(found, bodies);
    const perRow = Math.max(1, bodies.length / found.length);
    this.aheadRows = Math.max(1, Math.min(READ_AHEAD_ROWS, Math.floor(READ_AHEAD_BYTES / perRow)));
    this.ahead = { from, to, rows };
    return found[0]!.seq;
  }

  prevSeq(before: number): number | undefined {
    return this.query(() => this.sql.selectPrev.get(before) as number | undefined);
  }

  nextSeqOfSubject(subject: string, after: number): number | undefined {
    return this.query(() => this.sql.selectNextOfSubject.get(subject, after) as number | undefined);
  }

  prevSeqOfSubject(subject: string, before: number): number | undefined {
    return this.query(
      () => this.sql.selectPrevOfSubject.get(subject, before) as number | undefined,
    );
  }

  countOfSubjectFrom(subject: string, from: number): number {
    return this.query(() => this.sql.countOfSubject.get(subject, from) as number);
  }

  *scan(from: number): Iterable<{ seq: number; subject: string }> {
    for (let next = from; ; ) {
      const rows = this.query(
        () => this.sql.selectScan.all(next) as { seq: number; subject: string }[],
      );
      yield* rows;
      if (rows.length < SCAN_BATCH) return;
      next = rows[rows.length - 1]!.seq + 1;
    }
  }

  /**
   * A binary search over sequences: times never fall as sequences rise (the engine sees to it),
   * and the table has no index by time, so a query by time read every older row (a restart's
   * recovery of the duplicate window read the whole stream to find nothing in it).
   */
  firstSeqAtOrAfter(time: bigint): number | undefined {
    return this.query(() => {
      let found: number | undefined;
      let low = 0;
      let high = this.lastSeq;
      while (low <= high) {
        const middle = low + Math.floor((high - low) / 2);
        const row = this.sql.selectTimeFrom.get(middle) as [bigint, bigint] | undefined;
        if (!row || Number(row[0]) > high) {
          // No message in [middle, high].
          high = middle - 1;
        } else if (row[1] >= time) {
          found = Number(row[0]);
          high = middle - 1;
        } else {
          low = Number(row[0]) + 1;
        }
      }
      return found;
    });
  }

  setLast(seq: number, time: bigint): void {
    this.lastSeq = seq;
    this.lastTime = time;
    this.lastNeedsSaving = true;
  }

  whenDurable(): Promise<void> {
    return this.group.whenDurable();
  }

  /**
   * `write` inside the turn's transaction, under a savepoint: a throw rolls back to it (what came
   * before in the transaction stays) and the store recounts from the file, as after a lost
   * transaction. A failed SQLite write inside has already rolled back the whole transaction.
   */
  atomically<T>(write: () => T): T {
    let failure: { error: unknown } | undefined;
    const result = this.group.write(() => {
      this.db.exec('SAVEPOINT atomic_write');
      try {
        const value = write();
        this.db.exec('RELEASE atomic_write');
        return value;
      } catch (error) {
        failure = { error };
        if (this.db.inTransaction) this.db.exec('ROLLBACK TO atomic_write; RELEASE atomic_write');
        return undefined;
      }
    });
    if (failure) {
      this.forgetUnwritten();
      throw failure.error;
    }
    return result as T;
  }

  summary(): LogSummary {
    const sealed = this.sealed;
    this.sealed = undefined;
    if (sealed) {
      this.lastSeq = sealed.lastSeq;
      this.lastTime = sealed.lastTime;
      return sealed;
    }
    return this.query(() => {
      const subjects = new Map<string, SubjectState>();
      let bytes = 0;
      let highest = 0;
      const rows = this.db
        .prepare(
          'SELECT subject, count(*) AS messages, min(seq) AS first, max(seq) AS last, sum(size) AS bytes FROM messages GROUP BY subject',
        )
        .all() as {
        subject: string;
        messages: number;
        first: number;
        last: number;
        bytes: number;
      }[];
      for (const row of rows) {
        subjects.set(row.subject, { messages: row.messages, first: row.first, last: row.last });
        bytes += row.bytes;
        highest = Math.max(highest, row.last);
      }
      const saved = this.db
        .prepare('SELECT last_seq, last_time FROM sequence_state WHERE id = 1')
        .safeIntegers(true)
        .get() as { last_seq: bigint; last_time: bigint } | undefined;
      this.lastSeq = Math.max(Number(saved?.last_seq ?? 0n), highest);
      this.lastTime = saved?.last_time ?? 0n;
      if (highest > Number(saved?.last_seq ?? 0n)) this.lastTime = this.entry(highest)!.time;
      // The file follows the database as it opens (a start that found the database short of
      // the file's sequence rebuilt it up to there first); a failure here is met again, and
      // reported, by the first commit's write.
      try {
        this.lastSequence.write(this.lastSeq, this.lastTime);
      } catch {
        // Tried again by the next commit.
      }
      return { subjects, bytes, lastSeq: this.lastSeq, lastTime: this.lastTime };
    });
  }

  async close(state?: LogSummary): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.syncTimer) clearInterval(this.syncTimer);
    clearTimeout(this.idleTimer);
    this.removeDeferred();
    this.group.commit();
    await this.group.whenDurable().catch(() => {});
    await this.idleCheckpoint;
    await this.lazySync;
    this.runCheckpoint();
    this.db.close();
    this.wal.close();
    try {
      this.lastSequence.close();
    } catch (error) {
      this.onSyncFailure?.(error as Error);
      return;
    }
    if (state) sealClosedStore(this.path, state);
  }

  async destroy(): Promise<void> {
    await this.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(this.path + suffix, { force: true });
    rmSync(lastSequencePath(dirname(this.path)), { force: true });
    breakSeal(this.path);
  }

  /**
   * SQLite's integrity_check, up to the first problem: pages, b-trees and every index against
   * its table. A damaged interior page can hide rows from look-ups by sequence while a scan
   * still counts them, which quick_check and the message checksums both miss.
   */
  checkStructure(): string | undefined {
    try {
      const result = this.db.pragma('integrity_check(1)', { simple: true });
      return result === 'ok' ? undefined : String(result);
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** SQLite's online backup: changes made meanwhile through this connection reach the copy. */
  async backup(path: string): Promise<void> {
    this.removeDeferred();
    this.group.commit();
    try {
      await this.db.backup(path);
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * The stream wrote nothing for IDLE_CHECKPOINT_MS: its WAL is checkpointed and truncated on
   * the worker's thread. A write that starts meanwhile waits for it (SQLite's busy timeout).
   * A commit still open or being synced (a slow disk) puts it off for another interval.
   */
  private checkpointWhenIdle(): void {
    if (this.closed || this.idleCheckpoint) return;
    this.removeDeferred();
    if (!this.group.idle) {
      this.idleTimer?.refresh();
      return;
    }
    // The WAL held the newest rows besides the database; before it is emptied the last
    // sequence's file, the other place that tells of them, goes to the disk.
    this.idleCheckpoint = this.lastSequence
      .sync()
      .catch((error: Error) => this.onSyncFailure?.(error))
      .then(() => {
        this.holdLocks(false);
        return checkpointWorker.truncate(this.path);
      })
      .finally(() => {
        this.idleCheckpoint = undefined;
        this.holdLocks(true);
      });
  }

  /**
   * Holds SQLite's file locks between transactions (HOLD_LOCKS), or gives them up so that the
   * checkpoint worker's connection can open the file: SQLite drops them at the end of the first
   * transaction after the switch, which the read here is. A failure only costs the saving: held,
   * the worker answers busy and the WAL waits for the next idle checkpoint; given up, the
   * connection takes and drops them per transaction again. It never fails the close that awaits
   * the checkpoint.
   */
  private holdLocks(held: boolean): void {
    try {
      this.db.pragma(held ? HOLD_LOCKS : 'locking_mode = NORMAL');
      if (!held) this.sql.touch.get();
    } catch {
      // See above.
    }
  }

  /**
   * `sync: 'always'`: the commit's WAL to the disk, then its last sequence recorded, before the
   * commit's PubAcks go out. Taken now, as the next turns' writes move `lastSeq` on.
   */
  private async syncCommit(): Promise<void> {
    const seq = this.lastSeq;
    const time = this.lastTime;
    await this.wal.sync();
    this.lastSequence.write(seq, time);
  }

  /** As `syncCommit`, on the event loop (commit-group.ts says when). */
  private syncCommitNow(): void {
    this.wal.syncNow();
    this.lastSequence.write(this.lastSeq, this.lastTime);
  }

  /** Lazy mode's record of the last sequence; a failure is a failed sync, never silent. */
  private recordLastOrReport(seq: number, time: bigint): void {
    try {
      this.lastSequence.write(seq, time);
    } catch (error) {
      this.onSyncFailure?.(error as Error);
    }
  }

  async whenSynced(): Promise<void> {
    if (!this.lazy) return this.group.whenDurable();
    this.group.commit();
    try {
      await this.wal.sync();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Lazy mode, after a commit: starts a sync of the WAL every LAZY_SYNC_COMMITS commits. */
  private syncInBackground(): void {
    if (++this.commitsSinceSync < LAZY_SYNC_COMMITS || this.lazySync) return;
    this.commitsSinceSync = 0;
    this.lazySync = this.wal
      .sync()
      .catch((error: Error) => this.onSyncFailure?.(error))
      .finally(() => {
        this.lazySync = undefined;
      });
  }

  /** Commits what is pending and checkpoints, which syncs the WAL (lazy mode's timer). */
  private syncNow(): void {
    this.group.commit();
    this.runCheckpoint();
  }

  private runCheckpoint(): void {
    const truncate = this.checkpointAfterCommit;
    this.checkpointAfterCommit = false;
    try {
      this.db.pragma(`wal_checkpoint(${truncate ? 'TRUNCATE' : 'PASSIVE'})`);
    } catch (error) {
      // A checkpoint that cannot run now (disk full) leaves the data safe in the WAL, but in
      // lazy mode it is the sync, and an I/O error means the WAL may not be on the disk.
      if (this.lazy && (error as { code?: string }).code?.startsWith('SQLITE_IOERR')) {
        this.onSyncFailure?.(error as Error);
      }
    }
  }

  /** Deletes the rows of the removals deferred so far, in the turn's transaction. */
  removeDeferred(): void {
    if (this.deferredRemovals.length === 0) return;
    const seqs = this.deferredRemovals;
    this.deferredRemovals = [];
    // Unsynced: reopening the store would redo these removals anyway.
    this.group.write(() => {
      for (const seq of seqs) this.sql.deleteOne.run(seq);
    }, false);
  }

  /**
   * A read, after the deferred removals (so no query finds their rows); SQLite's own damage
   * reports become 'corrupt' naming the stream.
   */
  private query<T>(read: () => T): T {
    this.removeDeferred();
    try {
      return read();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * A read of one sequence: a deferred removal's row is not there for it, and the others stay
   * deferred. A KV put looks up the value it replaces; deleting the deferred rows first, as a
   * range query must, deleted one row per put again and undid DEFERRED_REMOVALS.
   */
  private lookUp<T>(seq: number, read: () => T): T | undefined {
    if (this.deferredRemovals.includes(seq)) return undefined;
    try {
      return read();
    } catch (error) {
      throw this.translate(error, seq);
    }
  }

  private damaged(error: StoreError): StoreError {
    this.onDamage?.(error);
    return error;
  }

  private translate(error: unknown, seq?: number): Error {
    if (error instanceof StoreError) return error;
    const code = sqliteCode(error);
    const where =
      seq === undefined ? `stream "${this.name}"` : `stream "${this.name}" message ${seq}`;
    const reason = error instanceof Error ? error.message : String(error);
    if (isDamage(code)) {
      return this.damaged(
        new StoreError('corrupt', `${where} is damaged: ${reason}`, this.name, seq, {
          cause: error,
        }),
      );
    }
    return new StoreError('io', `${where}: ${reason}`, this.name, seq, { cause: error });
  }
}
