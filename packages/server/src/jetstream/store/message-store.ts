/**
 * Room `jetstream/store/` (this is its main file, the interface the rooms above use): where a
 * stream's messages and its consumers' states live, in memory or in SQLite, with every limit
 * and TTL rule kept once in `store-engine.ts`. It imports no other JetStream room but shared/.
 *
 * The seam between a stream and where its messages live, modelled on the `StreamStore` of
 * nats-server's server/store.go. Two implementations share every rule (store-engine.ts):
 * memory (memory-store.ts) and one SQLite file per stream (sqlite-store.ts).
 *
 * Sequences are JS numbers: they count messages and stay far below 2^53. Timestamps are
 * nanoseconds since the Unix epoch as `bigint`: a nanosecond time of today (~1.8e18) does
 * not fit a double exactly, and nats-server reports them to the nanosecond.
 */

/** `memory` and `file` as in a stream config's `storage`; they count bytes differently. */
export type StorageKind = 'memory' | 'file';

/** A loaded message may be shared with the store and other readers: never modify its bytes. */
export interface StoredMessage {
  readonly subject: string;
  readonly seq: number;
  /** Nanoseconds since the Unix epoch, when the store accepted the message. */
  readonly time: bigint;
  /** The raw `NATS/1.0` header block, when the message had one. */
  readonly headers: Uint8Array | undefined;
  readonly payload: Uint8Array;
}

export interface StoredPosition {
  readonly seq: number;
  readonly time: bigint;
}

/** nats-server's `SimpleState`: messages of one subject (or filter), first and last seq. */
export interface SubjectState {
  messages: number;
  first: number;
  last: number;
}

export interface StoreState {
  messages: number;
  /** Stored size of the messages, counted as nats-server counts it (limits.ts). */
  bytes: number;
  /** With no messages, `lastSeq + 1`: the sequence the next message gets. */
  firstSeq: number;
  /** 0n with no messages. */
  firstTime: bigint;
  /** The highest sequence ever assigned, even if that message is gone. */
  lastSeq: number;
  /** 0n until a message was stored. */
  lastTime: bigint;
  numSubjects: number;
  /** Sequences between first and last that hold no message. */
  numDeleted: number;
  /** Those sequences, ascending; only when asked for (they can be many). */
  deleted?: number[];
}

export type DiscardPolicy = 'old' | 'new';

/**
 * The limits a store enforces itself. A value of 0 (or below, as nats-server's -1) means
 * unlimited. `maxAge` is in nanoseconds like a stream config's `max_age`.
 */
export interface StoreLimits {
  maxMsgs: number;
  maxBytes: number;
  maxAge: bigint;
  /** Headers plus payload, checked before anything else. */
  maxMsgSize: number;
  maxMsgsPerSubject: number;
  discard: DiscardPolicy;
  discardNewPerSubject: boolean;
  /**
   * A message's `Nats-TTL` header expires it (`allow_msg_ttl`); one whose TTL is `never` is
   * spared by max_age. Without it the header means nothing to the store.
   */
  allowMsgTtl?: boolean;
  /** Compress what is stored from now on (`compression: "s2"`); file stores only. */
  compress?: boolean;
  /**
   * A message with a `Nats-Rollup` header passes a subject at its limit under
   * discard_new_per_subject: its rollup purges the subject after it (nats-server 2.14).
   */
  rollupPastSubjectLimit?: boolean;
}

export const NO_LIMITS: StoreLimits = {
  maxMsgs: 0,
  maxBytes: 0,
  maxAge: 0n,
  maxMsgSize: 0,
  maxMsgsPerSubject: 0,
  discard: 'old',
  discardNewPerSubject: false,
};

/** What `purge` removes: as `$JS.API.STREAM.PURGE`'s `{filter, seq, keep}`. */
export interface PurgeOptions {
  /** Only messages matching this subject (wildcards allowed); empty or `>` means all. */
  subject?: string;
  /** Only messages below this sequence (0 and 1 mean no bound, as in nats-server 2.9/2.10). */
  seq?: number;
  /** Keep this many of the newest matching messages. Not together with `seq`. */
  keep?: number;
}

/** One consumer as its stream's store keeps it (nats-server's ConsumerStore). */
export interface SavedConsumer {
  readonly name: string;
  /** The consumer's config, as JSON. */
  readonly config: string;
  /** Nanoseconds since the epoch. */
  readonly created: bigint;
  /** Its delivery and ack state, as the consumer encoded it; undefined before the first. */
  readonly state: string | undefined;
}

/**
 * Consumer configs and states kept with the stream's messages, written in the same commit
 * groups: after a change, the store's `whenDurable()` also covers it.
 */
export interface ConsumerStore {
  /** Records a new or updated consumer. */
  saveConfig(name: string, config: string, created: bigint): void;
  /**
   * Marks the consumer's state changed; `encode` is called once, just before the group
   * commits, so a burst of acks writes the state once.
   */
  stateChanged(name: string, encode: () => string): void;
  remove(name: string): void;
  list(): SavedConsumer[];
}

export interface MessageStore {
  readonly kind: StorageKind;
  /** The stream's name, used in errors. */
  readonly name: string;
  /** Where the stream's consumers are kept; undefined when they live only in memory. */
  readonly consumers?: ConsumerStore;

  /**
   * Stores a message and returns its sequence at once. It is durable when the promise of
   * `whenDurable()` called after it resolves. Throws a `StoreError` (too-large, max-msgs,
   * max-bytes, max-per-subject under discard new; io; closed). The store keeps its own copy.
   */
  store(
    subject: string,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    /**
     * A mirror's copy keeps its origin's sequence and time: the sequences between the last and
     * `at.seq` are skipped (counted as deleted). `at.seq` must be above the last sequence.
     */
    at?: StoredPosition,
  ): StoredPosition;
  /**
   * Resolves once everything changed so far is on disk; rejects with `io` if it never will
   * be (the group was rolled back). Call it in the same event-loop turn as the changes it
   * should cover: a later call only speaks for what the store still holds. Loads already
   * see changes that are not yet durable, so a PubAck or a delivery waits for this.
   */
  whenDurable(): Promise<void>;
  /**
   * As `whenDurable()`, but on disk whatever the sync mode: lazy mode syncs only every interval,
   * which may lose published messages (the mode's trade-off) but not a consumer the client was
   * told exists. Waited for before a consumer's creation or update is answered.
   */
  whenSynced(): Promise<void>;
  /**
   * Runs `write` (stores and the removals they bring) as one unit: a file store keeps it in one
   * SQLite transaction (savepoint) and, when `write` throws, undoes all of it and recounts before
   * rethrowing, so a crash or a failure never leaves part of it. A memory store just runs it.
   */
  atomically<T>(write: () => T): T;

  /** Throws `not-found` for a removed or unknown sequence at or below the last, `eof` above it. */
  load(seq: number): StoredMessage;
  /** The first message at or after `start` whose subject matches `filter` (empty: any). */
  loadNext(filter: string, start: number): StoredMessage | undefined;
  /** The newest message whose subject matches `filter` (empty: any). */
  loadLast(filter: string): StoredMessage | undefined;

  /** Removes one message; false when there was none with that sequence. */
  remove(seq: number): boolean;
  /** Removes one message and overwrites its bytes so they cannot be read back. */
  erase(seq: number): boolean;
  /** Returns how many messages were removed. */
  purge(options?: PurgeOptions): number;
  /** Removes every message below `seq`; past the end, the next message gets `seq`. */
  compact(seq: number): number;
  /** Removes every message above `seq`, which becomes the last sequence. */
  truncate(seq: number): void;

  /** The first sequence whose message was stored at or after `time` (last + 1 if none). */
  seqFromTime(time: bigint): number;
  /** Messages at or after `seq` matching `filter`, with their first and last sequence. */
  filteredState(seq: number, filter: string): SubjectState;
  /** Per-subject state of the subjects matching `filter` (empty: all). */
  subjectsState(filter: string): Map<string, SubjectState>;
  /** Messages at or after `seq` matching `filter`; with `lastPerSubject`, subjects whose last is. */
  numPending(seq: number, filter: string, lastPerSubject: boolean): number;
  state(options?: { deleted?: boolean }): StoreState;
  /**
   * Reads every message and returns the sequences whose checksum fails, for a check at
   * recovery. Throws `corrupt` when the file is damaged beyond telling which messages.
   */
  findDamaged(): number[];

  /**
   * Calls `listener` after max_age removed the last message of a subject, with that message:
   * where a stream with subject delete markers writes one (nats-server 2.11).
   */
  onAgedOutLast(listener: ((message: StoredMessage) => void) | undefined): void;

  /** Applies new limits, removing what they no longer allow. */
  updateLimits(limits: StoreLimits): void;
  /** Writes out what is pending and releases the store; later calls throw `closed`. */
  close(): Promise<void>;
  /** Closes and removes the stored data. */
  delete(): Promise<void>;
  /**
   * Writes a consistent copy of the store's database to `path` while it keeps serving (file
   * stores only): what a snapshot reads from, so later writes do not change it.
   */
  backup?(path: string): Promise<void>;
  /**
   * Checks the file's own structure (file stores only): the first problem found, or undefined.
   * Damage there can hide messages from every read, which no checksum of a message can tell.
   */
  checkStructure?(): string | undefined;
}

export type StoreErrorCode =
  | 'closed'
  | 'not-found'
  | 'eof'
  | 'max-msgs'
  | 'max-bytes'
  | 'max-per-subject'
  | 'too-large'
  | 'bad-argument'
  | 'corrupt'
  | 'io';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** The stream and sequence concerned, when there is one (always for `corrupt`). */
    readonly stream?: string,
    readonly seq?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
