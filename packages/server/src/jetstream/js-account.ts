/**
 * The JetStream state of one account: its streams by name, what they hold against the
 * account's limits, and its API counters.
 */

import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ApiError, type JsErrorEntry, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import { subjectsCollide } from '@slipstream/protocol';
import type { Logger } from '../logger.js';
import type { ResolvedJetStreamOptions } from '../options.js';
import { type JsAccountLimits, UNLIMITED } from './account-limits.js';
import { StreamConsumers } from './consumer/stream-consumers.js';
import { nowNanos } from './shared/wire-time.js';
import { clearStaging } from './snapshot/snapshot-staging.js';
import { sealedSummary } from './store/close-seal.js';
import {
  type LastSequence,
  lastSequencePath,
  readLastSequence,
} from './store/last-sequence-file.js';
import { openMemoryStore } from './store/memory-store.js';
import type { LogSummary } from './store/message-log.js';
import type { MessageStore } from './store/message-store.js';
import { inspectSqliteFile, type Salvage, salvageSqliteFile } from './store/sqlite-salvage.js';
import { openSqliteStore } from './store/sqlite-store.js';
import { storeSyncOf } from './stream/persist-mode.js';
import { StoreSyncFailures } from './stream/store-sync-failures.js';
import { Stream, type StreamHost } from './stream/stream.js';
import {
  checkStreamConfig,
  checkStreamCreate,
  checkStreamUpdate,
  type StreamConfigLookup,
  sameStreamConfig,
  storeLimitsOf,
} from './stream/stream-config.js';
import { type StreamDamage, StreamDamageReports } from './stream/stream-damage.js';
import {
  damagedFilesDir,
  listStreamDirs,
  messagesFile,
  readStreamMeta,
  removeStreamDir,
  streamDir,
  writeStreamMeta,
} from './stream/stream-files.js';

// The limits live apart, so that the accounts can read them without loading JetStream.
export type { JsAccountLimits } from './account-limits.js';

/** A stream of the account, with its consumers as the consumer room makes them. */
export type AccountStream = Stream<StreamConsumers>;

export interface ApiCounters {
  total: number;
  errors: number;
}

export class JsAccount {
  readonly streams = new Map<string, AccountStream>();
  readonly api: ApiCounters = { total: 0, errors: 0 };
  readonly lookup: StreamConfigLookup = (name) => this.streams.get(name)?.config;

  private readonly host: StreamHost;
  readonly #damage: StreamDamageReports;
  readonly #syncFailures: StoreSyncFailures;
  /** Streams found at start that cannot be served, by name, with why: answered as offline. */
  readonly offline = new Map<string, string>();

  constructor(
    readonly name: string,
    private readonly options: ResolvedJetStreamOptions,
    host: Omit<StreamHost, 'stream' | 'maxConsumers' | 'resourcesExhausted'> & {
      /** The server's own budget check, before the account's. */
      resourcesExhausted(storage: 'memory' | 'file'): JsErrorEntry | undefined;
    },
    private readonly logger: Logger,
    /** Operator mode changes them with the account's claims; they apply from then on. */
    public limits: JsAccountLimits = UNLIMITED,
  ) {
    this.#damage = new StreamDamageReports(name, host.advisories, logger);
    this.#syncFailures = new StoreSyncFailures(name, logger);
    const current = () => this.limits;
    // Streams find their mirror's and sources' origins among this account's streams.
    this.host = {
      ...host,
      get maxConsumers() {
        return current().maxConsumers;
      },
      resourcesExhausted: (storage, bytes) =>
        host.resourcesExhausted(storage) ?? this.#exceeded(storage, bytes),
      stream: (name) => this.streams.get(name),
      maxPayload: options.objects.maxChunk,
    };
  }

  /** The damage found in the account's streams, at start or by reads since, and their failed syncs. */
  get damaged(): readonly StreamDamage[] {
    return [...this.#damage.found, ...this.#syncFailures.found];
  }

  #newStream(config: StreamConfig, store: MessageStore, created: bigint): AccountStream {
    return new Stream(
      this.host,
      config,
      store,
      created,
      (stream) => new StreamConsumers(stream, this.host),
    );
  }

  /**
   * Reopens the file streams found in the store directory. A damaged file is rebuilt from what
   * reads intact first (sqlite-salvage.ts); a stream that cannot be opened at all (its meta.json
   * damaged, a file with nothing readable) stays on disk as it is and is answered as offline.
   */
  recover(): void {
    const storeDir = this.options.storeDir;
    if (!storeDir) return;
    clearStaging(storeDir, this.name);
    for (const [name, dir] of listStreamDirs(storeDir, this.name)) {
      try {
        this.#restore(name, dir, true);
      } catch (error) {
        this.offline.set(name, (error as Error).message);
        this.#damage.offline(name, dir, (error as Error).message);
      }
    }
  }

  #restore(name: string, dir: string, salvage = false): void {
    const aside = damagedFilesDir(dir, new Date());
    const meta = readStreamMeta(dir, aside);
    if (meta.repaired) this.#damage.repaired(name, meta.repaired);
    const recorded = this.#lastSequence(name, dir, aside);
    const file = messagesFile(dir);
    let salvaged: Salvage | undefined;
    const found = salvage && existsSync(file);
    // A file as its last clean close left it is opened as it is, with the counts it was sealed with.
    const sealed = found ? sealedSummary(file, recorded) : undefined;
    const damage = found && !sealed ? inspectSqliteFile(file, recorded) : undefined;
    if (damage) {
      salvaged = salvageSqliteFile(file, aside, recorded);
      this.#damage.salvaged(name, damage, salvaged);
    }
    const store = this.#openStore(meta.config, dir, sealed);
    const stream = this.#newStream(meta.config, store, meta.created);
    if (salvaged && salvaged.lost.msgs.length > 0) stream.lost = salvaged.lost;
    this.streams.set(name, stream);
    stream.start();
    stream.consumers.restore();
    const state = store.state();
    this.logger.info(`  Restored ${state.messages} messages for stream '${this.name} > ${name}'`);
  }

  /**
   * The stream's last sequence as its store recorded it outside the database; a damaged record
   * is moved aside (the store writes it again from the database as it opens) and reported.
   */
  #lastSequence(name: string, dir: string, aside: () => string): LastSequence | undefined {
    const path = lastSequencePath(dir);
    const found = readLastSequence(path);
    if (!found || !('damaged' in found)) return found;
    renameSync(path, join(aside(), basename(path)));
    this.#damage.repaired(name, `${found.damaged}; rewritten from messages.db`);
    return undefined;
  }

  /** STREAM.CREATE: a new stream, or the existing one when the config is the same. */
  createStream(
    subjectName: string,
    requested: StreamConfig,
  ): { stream: AccountStream; created: boolean } {
    const config = checkStreamCreate(subjectName, requested, this.lookup);
    if (this.offline.has(config.name)) throw ApiError.of(jsErrors.JSStreamOfflineErr);
    const existing = this.streams.get(config.name);
    if (existing) {
      if (!sameStreamConfig(existing.config, config))
        throw ApiError.of(jsErrors.JSStreamNameExistErr);
      return { stream: existing, created: false };
    }
    this.#checkNoOverlap(config);
    this.checkLimits(config);
    const created = nowNanos();
    let store: MessageStore;
    try {
      store = this.#createStore(config, created);
    } catch (error) {
      throw ApiError.of(jsErrors.JSStreamCreateErrF, { err: (error as Error).message });
    }
    const stream = this.#newStream(config, store, created);
    this.streams.set(config.name, stream);
    stream.start();
    return { stream, created: true };
  }

  /**
   * Registers a stream a restore rebuilt (restore.ts): a file stream's staged directory moves
   * into place and opens as at start, a memory stream's store is taken as it is. On failure
   * nothing of it stays registered or in the streams directory.
   */
  adoptRestoredStream(
    config: StreamConfig,
    created: bigint,
    staged: { dir: string } | { store: MessageStore },
  ): AccountStream {
    if (this.streams.has(config.name)) {
      throw ApiError.of(jsErrors.JSStreamNameExistRestoreFailedErr);
    }
    this.#checkNoOverlap(config);
    this.checkLimits(config);
    if ('store' in staged) {
      const stream = this.#newStream(config, staged.store, created);
      this.streams.set(config.name, stream);
      stream.start();
      return stream;
    }
    const dir = this.#dirOf(config.name);
    // A stream directory not served (found damaged at start) is kept for a person to look at.
    if (existsSync(dir)) throw new Error(`${dir} exists and is not a served stream`);
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(staged.dir, dir);
    try {
      this.#restore(config.name, dir);
    } catch (error) {
      this.streams.delete(config.name);
      removeStreamDir(dir);
      throw error;
    }
    return this.streams.get(config.name)!;
  }

  /** STREAM.UPDATE. */
  updateStream(subjectName: string, requested: StreamConfig): AccountStream {
    // nats-server's order: the config's own rules, then the name, then the stream.
    checkStreamConfig(requested, this.lookup);
    if (requested.name !== subjectName) throw ApiError.of(jsErrors.JSStreamMismatchErr);
    const stream = this.streams.get(subjectName);
    if (!stream) throw ApiError.of(jsErrors.JSStreamNotFoundErr);
    const config = checkStreamUpdate(stream.config, requested, this.lookup);
    this.#checkNoOverlap(config);
    if (this.options.storeDir && config.storage === 'file') {
      writeStreamMeta(this.#dirOf(config.name), { config, created: stream.created });
    }
    stream.update(config);
    return stream;
  }

  async deleteStream(name: string): Promise<void> {
    if (this.offline.delete(name)) {
      // The operator's word: an offline stream's files go as a served stream's do.
      if (this.options.storeDir) removeStreamDir(this.#dirOf(name));
      this.#damage.forget(name);
      this.#syncFailures.forget(name);
      return;
    }
    const stream = this.stream(name);
    this.streams.delete(name);
    await stream.delete();
    if (this.options.storeDir) removeStreamDir(this.#dirOf(name));
    this.#damage.forget(name);
    this.#syncFailures.forget(name);
  }

  /** The stream named; a stream found at start but not served is offline (10118), as nats-server answers. */
  stream(name: string): AccountStream {
    const stream = this.streams.get(name);
    if (!stream && this.offline.has(name)) throw ApiError.of(jsErrors.JSStreamOfflineErr);
    if (!stream) throw ApiError.of(jsErrors.JSStreamNotFoundErr);
    return stream;
  }

  /** Bytes held by the account's memory and file streams. */
  usage(): { memory: number; storage: number } {
    let memory = 0;
    let storage = 0;
    for (const stream of this.streams.values()) {
      const bytes = stream.store.state().bytes;
      if (stream.config.storage === 'memory') memory += bytes;
      else storage += bytes;
    }
    return { memory, storage };
  }

  async close(): Promise<void> {
    await Promise.all([...this.streams.values()].map((stream) => stream.close()));
    this.streams.clear();
  }

  /**
   * A new stream must fit the account's limits: the stream count, its max_consumers, and its
   * max_bytes (at least one byte) on top of what the account's other streams of that storage
   * already reserve (nats-server's jsNonClusteredStreamLimitsCheck, which STREAM.RESTORE also
   * runs before its upload).
   */
  checkLimits(config: StreamConfig): void {
    const { maxStreams, maxConsumers, maxMemory, maxFile } = this.limits;
    if (maxStreams > 0 && this.streams.size >= maxStreams) {
      throw ApiError.of(jsErrors.JSMaximumStreamsLimitErr);
    }
    const consumers = config.max_consumers ?? -1;
    if (consumers > 0 && maxConsumers > 0 && consumers > maxConsumers) {
      throw ApiError.of(jsErrors.JSMaximumConsumersLimitErr);
    }
    const storage = config.storage ?? 'file';
    const limit = storage === 'memory' ? maxMemory : maxFile;
    if (limit < 0) return;
    let reserved = 0;
    for (const stream of this.streams.values()) {
      if ((stream.config.storage ?? 'file') === storage && stream.name !== config.name)
        reserved += Math.max(0, stream.config.max_bytes ?? 0);
    }
    const wanted = Math.max(1, config.max_bytes ?? -1);
    if (reserved + wanted > limit) {
      throw ApiError.of(
        storage === 'memory'
          ? jsErrors.JSMemoryResourcesExceededErr
          : jsErrors.JSStorageResourcesExceededErr,
      );
    }
  }

  /**
   * A message of about `bytes` would overspend the account's budget for a storage type.
   * nats-server 2.9.10 stores it, finds the account over its limit and removes it again
   * (jsa.limitsExceeded): the same answer, but here its sequence is not used up.
   */
  #exceeded(storage: 'memory' | 'file', bytes: number): JsErrorEntry | undefined {
    const limit = storage === 'memory' ? this.limits.maxMemory : this.limits.maxFile;
    if (limit < 0) return undefined;
    const usage = this.usage();
    const used = storage === 'memory' ? usage.memory : usage.storage;
    return used + bytes > limit ? jsErrors.JSAccountResourcesExceededErr : undefined;
  }

  /** A read found a message damaged: it is part of the stream's `lost` from now on. */
  #noteLost(name: string, seq: number): void {
    const stream = this.streams.get(name);
    if (!stream) return;
    stream.lost ??= { msgs: [], bytes: 0 };
    if (!stream.lost.msgs.includes(seq)) stream.lost.msgs.push(seq);
  }

  #checkNoOverlap(config: StreamConfig): void {
    for (const other of this.streams.values()) {
      if (other.name === config.name) continue;
      for (const mine of config.subjects ?? []) {
        for (const theirs of other.config.subjects ?? []) {
          if (subjectsCollide(mine, theirs)) throw ApiError.of(jsErrors.JSStreamSubjectOverlapErr);
        }
      }
    }
  }

  #dirOf(name: string): string {
    return streamDir(this.options.storeDir!, this.name, name);
  }

  #createStore(config: StreamConfig, created: bigint): MessageStore {
    if (!this.options.storeDir || config.storage === 'memory') {
      return openMemoryStore({ name: config.name, limits: storeLimitsOf(config) });
    }
    const dir = this.#dirOf(config.name);
    writeStreamMeta(dir, { config, created });
    return this.#openStore(config, dir);
  }

  #openStore(config: StreamConfig, dir: string, sealed?: LogSummary): MessageStore {
    return openSqliteStore({
      name: config.name,
      path: messagesFile(dir),
      sealed,
      limits: storeLimitsOf(config),
      sync: storeSyncOf(config, this.options.syncInterval),
      onDamage: (error) => {
        this.#damage.read(error);
        if (error.seq !== undefined) this.#noteLost(config.name, error.seq);
      },
      onSyncFailure: (error) => this.#syncFailures.failed(config.name, error),
    });
  }
}
