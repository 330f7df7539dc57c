/**
 * Group commit for one SQLite connection: every write of one event-loop turn joins one
 * transaction, committed once the turn's I/O callbacks have run (setImmediate), so a burst
 * of publishes costs one COMMIT and one sync of the WAL instead of one per message.
 * Callers learn when their writes are durable through `whenDurable()`, which is how a
 * PubAck waits for the disk. A transaction of bookkeeping only (a consumer's ack state, which
 * nobody waits for) is committed without a sync of its own: the next synced commit carries it
 * to the disk, or the first `whenDurable()` after it (a double ack's confirmation). In a pull
 * consume every turn of acks was an fdatasync.
 *
 * A commit holding one synced write alone (a publisher awaiting each PubAck) is synced on the
 * event loop instead, when the hooks can and the last sync was quick: the thread pool's hop
 * (waking a worker, then the loop again) cost such a publish 60-120 µs on top of the sync, a
 * fifth of its time, and a lone publish has nothing to overlap with the sync. A burst's first
 * commit may be synced so, while its other publishes wait in the socket; they then make the
 * next commit large enough for the thread pool. A slow disk (a sync over INLINE_SYNC_LIMIT_MS)
 * goes back to the thread pool, so the loop is never held for long.
 */
import type { Database, Statement } from 'better-sqlite3';

export interface CommitHooks {
  /** Last writes that belong in every transaction (the stream's sequence state). */
  beforeCommit(): void;
  /** Work that must follow a commit (the checkpoint that completes an erase). */
  afterCommit(): void;
  /** The open transaction was lost (rolled back): whatever it held is gone. */
  lostWrites(): void;
  /** The error callers see for a failed write or commit (a StoreError). */
  translate(error: unknown): Error;
  /**
   * Makes a committed transaction durable off the event loop (an fsync on the thread pool);
   * without it the COMMIT itself is taken as durable.
   */
  sync?(): Promise<void>;
  /** As `sync`, on the calling thread: throws when the commit cannot be made durable. */
  syncNow?(): void;
}

/** A sync slower than this keeps the next ones on the thread pool (see above). */
const INLINE_SYNC_LIMIT_MS = 1;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

const settled = Promise.resolve();

export class CommitGroup {
  private open = false;
  private scheduled: NodeJS.Immediate | undefined;
  private waiters: Waiter[] = [];
  private durable: Promise<void> | undefined;
  /** The sync of the last commit, while it runs. */
  private syncing: Promise<void> | undefined;
  /** A turn ended while a sync ran: the open transaction commits when the sync is done. */
  private commitAfterSync = false;
  /** The open transaction holds a write that its commit must sync, or someone waits for it. */
  private syncWanted = false;
  /** A commit went out without a sync: the next `whenDurable()` syncs it. */
  private unsynced = false;
  /** Writes in the open transaction that its commit must sync. */
  private syncedWrites = 0;
  /** How long the last sync took, from its start to its end on the event loop (ms). */
  private lastSyncMs = 0;
  /**
   * Prepared once: `exec` parses its SQL at every call, which for a publisher awaiting each
   * PubAck (a transaction a message) was ~3 % of the event loop's time.
   */
  private readonly begin: Statement;
  private readonly end: Statement;
  private readonly rollback: Statement;

  constructor(
    private readonly db: Database,
    private readonly hooks: CommitHooks,
  ) {
    this.begin = db.prepare('BEGIN');
    this.end = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  /**
   * Runs `write` inside the turn's transaction, opening it if needed. `synced` false: the write
   * is bookkeeping that may wait for the next synced commit.
   */
  write<T>(write: () => T, synced = true): T {
    if (!this.open) {
      this.begin.run();
      this.open = true;
      this.scheduled = setImmediate(() => this.turnEnded());
    }
    if (synced) {
      this.syncWanted = true;
      this.syncedWrites++;
    }
    try {
      return write();
    } catch (error) {
      throw this.abandon(error);
    }
  }

  /** Nothing written and not yet committed, no commit being synced. */
  get idle(): boolean {
    return !this.open && !this.syncing;
  }

  /** Resolves after the COMMIT of everything written so far; rejects if it failed. */
  whenDurable(): Promise<void> {
    if (!this.open) return this.unsynced ? this.syncUnsynced() : (this.syncing ?? settled);
    this.syncWanted = true;
    this.durable ??= new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
    return this.durable;
  }

  /**
   * While the last commit is still being synced, the next turns' writes keep joining the open
   * transaction, which commits once that sync is done: the slower the disk, the larger the
   * groups, so one fsync covers more publishes instead of queueing behind each other.
   */
  private turnEnded(): void {
    this.scheduled = undefined;
    if (this.syncing) this.commitAfterSync = true;
    else this.commit();
  }

  /** Commits the open transaction now (the turn's end, a close, a periodic sync). */
  commit(): void {
    this.commitAfterSync = false;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (!this.open) return;
    try {
      this.hooks.beforeCommit();
      this.end.run();
    } catch (error) {
      this.abandon(error);
      return;
    }
    this.open = false;
    const waiters = this.takeWaiters();
    const sync = this.hooks.sync !== undefined && this.syncWanted;
    const alone = this.syncedWrites <= 1;
    this.syncWanted = false;
    this.syncedWrites = 0;
    if (sync && alone && this.canSyncNow()) this.syncNow(waiters);
    else if (sync) this.syncAfterCommit(waiters);
    else {
      this.unsynced ||= this.hooks.sync !== undefined;
      for (const waiter of waiters) waiter.resolve();
    }
    this.hooks.afterCommit();
  }

  private canSyncNow(): boolean {
    return (
      this.hooks.syncNow !== undefined &&
      this.syncing === undefined &&
      this.lastSyncMs < INLINE_SYNC_LIMIT_MS
    );
  }

  /** The commit synced before the event loop goes on; its waiters hear at once. */
  private syncNow(waiters: Waiter[]): void {
    this.unsynced = false;
    const started = performance.now();
    try {
      this.hooks.syncNow!();
    } catch (error) {
      this.lastSyncMs = performance.now() - started;
      const failure = this.hooks.translate(error);
      for (const waiter of waiters) waiter.reject(failure);
      return;
    }
    this.lastSyncMs = performance.now() - started;
    for (const waiter of waiters) waiter.resolve();
  }

  /** Syncs the commits that went out unsynced, after the sync running now (which began before them). */
  private async syncUnsynced(): Promise<void> {
    if (this.syncing) await this.syncing.catch(() => {});
    if (this.unsynced && !this.syncing) this.syncAfterCommit([]);
    return this.syncing ?? settled;
  }

  /** The event loop goes on while the commit is synced; its waiters hear when it is done. */
  private syncAfterCommit(waiters: Waiter[]): void {
    this.unsynced = false;
    const started = performance.now();
    const syncing = this.hooks.sync!().then(
      () => {
        this.lastSyncMs = performance.now() - started;
        for (const waiter of waiters) waiter.resolve();
      },
      (error: unknown) => {
        this.lastSyncMs = performance.now() - started;
        const failure = this.hooks.translate(error);
        for (const waiter of waiters) waiter.reject(failure);
        throw failure;
      },
    );
    this.syncing = syncing;
    const done = () => {
      if (this.syncing !== syncing) return;
      this.syncing = undefined;
      if (!this.commitAfterSync) return;
      // The synced group's answers (PubAcks) were queued just now and are written at this
      // turn's end: the next group commits after them, so neither its COMMIT nor the start of
      // its sync (whose thread-pool thread can take the event loop's core for a while on a busy
      // machine) holds them back. Writes read until then join that group.
      this.commitAfterSync = false;
      this.scheduled = setImmediate(() => this.turnEnded());
    };
    syncing.then(done, done);
  }

  /** Rolls the open transaction back after a failed write: none of it will be durable. */
  private abandon(cause: unknown): Error {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.db.inTransaction) this.rollback.run();
    this.open = false;
    this.syncWanted = false;
    this.syncedWrites = 0;
    // Nothing is left to commit after the running sync; the next write schedules its own commit.
    this.commitAfterSync = false;
    const error = this.hooks.translate(cause);
    for (const waiter of this.takeWaiters()) waiter.reject(error);
    this.hooks.lostWrites();
    return error;
  }

  private takeWaiters(): Waiter[] {
    const waiters = this.waiters;
    this.waiters = [];
    this.durable = undefined;
    return waiters;
  }
}
