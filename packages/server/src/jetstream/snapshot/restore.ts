/**
 * STREAM.RESTORE's upload: the client sends the archive (snapshot-archive.ts) in chunks to
 * `$JS.SNAPSHOT.RESTORE.<stream>.<id>`, each with a reply subject it gets an empty ack on, and
 * ends with an empty message, whose reply gets the restored stream's info (or the error) as a
 * stream create response, as nats-server answers. Records are checked and written into staging
 * as they arrive (a file stream's database to its file, restore-database.ts; messages into a
 * staging store); only a complete, verified archive becomes a stream, registered in one step. Anything wrong (garbage, a bad checksum, a truncated archive, an upload idle for
 * RESTORE_IDLE_MS) ends the restore and removes everything it wrote.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { ApiError, apiResponseType, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import type { InternalMessage } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';
import type { JetStreamHost } from '../jetstream-host.js';
import type { JsAccount } from '../js-account.js';
import { nowNanos } from '../shared/wire-time.js';
import { openMemoryStore } from '../store/memory-store.js';
import { type MessageStore, NO_LIMITS } from '../store/message-store.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import { storeLimitsOf } from '../stream/stream-config.js';
import { messagesFile, writeStreamMeta } from '../stream/stream-files.js';
import { answeredStreamInfo } from '../stream/stream-info.js';
import { StagedDatabase } from './restore-database.js';
import { type ArchiveMeta, ArchiveReader, type ArchiveRecord } from './snapshot-archive.js';
import { newStagingDir } from './snapshot-staging.js';
import { replayAll, replayLastSeq, replayMessage } from './store-replay.js';

/** nats-server gives up on an upload that sends nothing for 5 seconds. */
export const RESTORE_IDLE_MS = 5000;

const CREATE_RESPONSE = apiResponseType('stream_create_response');

export class StreamRestore {
  readonly deliverSubject: string;
  readonly #started = nowNanos();
  readonly #reader = new ArchiveReader();
  /** Where messages of an archive of messages go, opened at the first that needs it. */
  #store: MessageStore | undefined;
  /** Where the database of a file stream's archive goes. */
  #database: StagedDatabase | undefined;
  /** The staging directory (undefined without a store directory). */
  readonly #dir: string | undefined;
  readonly #sub: Subscription;
  #idle: NodeJS.Timeout;
  #meta: ArchiveMeta | undefined;
  #bytes = 0;
  #done = false;

  constructor(
    private readonly js: JetStreamHost,
    private readonly account: JsAccount,
    /** The checked config the stream is restored with: the request's, as in nats-server. */
    private readonly config: StreamConfig,
  ) {
    const storeDir = js.options.storeDir;
    const name = config.name;
    this.#dir = storeDir ? newStagingDir(storeDir, account.name) : undefined;
    if (this.#dir) mkdirSync(this.#dir, { recursive: true });
    this.deliverSubject = `$JS.SNAPSHOT.RESTORE.${name}.${nuid.next()}`;
    this.#sub = js.client.subscribe(this.deliverSubject, (m) => this.#receive(m));
    this.#idle = this.#idleTimer();
    js.advisories.restoreCreate(account.name, name);
    js.logger.info(`Starting restore for stream '${account.name} > ${name}'`);
  }

  #receive(message: InternalMessage): void {
    if (this.#done) return;
    clearTimeout(this.#idle);
    this.#idle = this.#idleTimer();
    if (!message.reply) {
      void this.#fail(undefined, new Error('every chunk needs a reply subject'));
    } else if (message.payload.length === 0) {
      void this.#complete(message.reply);
    } else {
      try {
        this.#bytes += message.payload.length;
        for (const record of this.#reader.push(message.payload)) this.#apply(record);
      } catch (error) {
        void this.#fail(message.reply, error);
        return;
      }
      this.js.client.publish(message.reply, new Uint8Array(0));
    }
  }

  #apply(record: ArchiveRecord): void {
    switch (record.kind) {
      case 'meta':
        if (record.meta.config.name !== this.config.name) {
          throw new Error('stream names do not match');
        }
        this.#meta = record.meta;
        return;
      case 'database':
        this.#stagedDatabase().write(record.bytes);
        return;
      case 'message':
        replayMessage(this.#stagingStore(), record.message);
        return;
      case 'consumer': {
        // A memory store keeps no consumers (they live only in the running stream): dropped.
        const { name, config, created, state } = record.consumer;
        const consumers = this.#stagingStore().consumers;
        consumers?.saveConfig(name, config, created);
        if (state !== undefined) consumers?.stateChanged(name, () => state);
        return;
      }
      case 'end':
        if (this.#database) return;
        replayLastSeq(this.#stagingStore(), this.#meta!.lastSeq, this.#meta!.lastTime);
        return;
    }
  }

  /** The store an archive of messages is replayed into. */
  #stagingStore(): MessageStore {
    if (this.#database) throw new Error('the archive has both a database and messages');
    if (!this.#store) {
      const name = this.config.name;
      // Limits apply once the stream is whole: while it is rebuilt, nothing may be dropped.
      this.#store =
        this.#dir && this.config.storage !== 'memory'
          ? openSqliteStore({ name, path: messagesFile(this.#dir), limits: NO_LIMITS })
          : openMemoryStore({ name, limits: NO_LIMITS });
    }
    return this.#store;
  }

  #stagedDatabase(): StagedDatabase {
    if (this.#store) throw new Error('the archive has both a database and messages');
    if (!this.#database) {
      if (!this.#dir) throw new Error('a file stream archive needs a store directory');
      this.#database = new StagedDatabase(this.config.name, messagesFile(this.#dir));
    }
    return this.#database;
  }

  /** The whole staged stream, checked: a file stream's closed, a memory stream's as a store. */
  async #staged(): Promise<{ dir: string } | { store: MessageStore }> {
    let store = this.#database ? this.#database.open() : this.#stagingStore();
    if (this.config.storage === 'memory' && store.kind === 'file') {
      // A file stream's archive restored as a memory stream.
      const memory = openMemoryStore({ name: this.config.name, limits: NO_LIMITS });
      replayAll(store, memory);
      await store.close();
      store = memory;
    }
    await store.whenDurable();
    if (store.kind === 'memory') {
      store.updateLimits(storeLimitsOf(this.config));
      if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
      return { store };
    }
    await store.close();
    writeStreamMeta(this.#dir!, { config: this.config, created: this.#meta!.created });
    return { dir: this.#dir! };
  }

  /** The upload ended: the staged stream becomes the account's, or the restore fails. */
  async #complete(reply: string): Promise<void> {
    this.#stop();
    let body: object;
    try {
      this.#reader.finish();
      const stream = this.account.adoptRestoredStream(
        this.config,
        this.#meta!.created,
        await this.#staged(),
      );
      // Created, as nats-server announces a restored stream before the restore's completion.
      this.js.advisories.streamAction(stream.name, 'create');
      body = {
        type: CREATE_RESPONSE,
        ...answeredStreamInfo(stream, { apiLevel: true, origins: false }),
      };
      this.js.logger.info(
        `Completed restore of ${this.#bytes} bytes for stream '${this.account.name} > ${this.config.name}'`,
      );
    } catch (error) {
      await this.#discard();
      body = { type: CREATE_RESPONSE, error: restoreError(error) };
      this.#warn(error);
    }
    this.js.advisories.restoreComplete(
      this.account.name,
      this.config.name,
      this.#started,
      nowNanos(),
      this.#bytes,
    );
    this.js.client.publish(reply, Buffer.from(JSON.stringify(body)));
  }

  /** Ends a restore that cannot succeed, telling the sender on `reply` when it gave one. */
  async #fail(reply: string | undefined, error: unknown): Promise<void> {
    this.#stop();
    this.#warn(error);
    // Cleaned up before the answer, so whoever reads it finds nothing left.
    await this.#discard();
    if (reply) {
      const body = { type: CREATE_RESPONSE, error: restoreError(error) };
      this.js.client.publish(reply, Buffer.from(JSON.stringify(body)));
    }
  }

  #idleTimer(): NodeJS.Timeout {
    const timer = setTimeout(
      () => void this.#fail(undefined, new Error(`no chunk for ${RESTORE_IDLE_MS / 1000} s`)),
      RESTORE_IDLE_MS,
    );
    timer.unref();
    return timer;
  }

  #stop(): void {
    this.#done = true;
    clearTimeout(this.#idle);
    this.js.client.unsubscribe(this.#sub);
  }

  async #discard(): Promise<void> {
    this.#database?.close();
    try {
      await this.#store?.delete();
    } catch {
      // Closed already (its stream was being registered): its files go with the directory.
    }
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }

  #warn(error: unknown): void {
    this.js.logger.warn(
      `Restore of stream '${this.account.name} > ${this.config.name}' failed: ${(error as Error).message}`,
    );
  }
}

function restoreError(error: unknown) {
  const apiError =
    error instanceof ApiError
      ? error
      : ApiError.of(jsErrors.JSStreamRestoreErrF, { err: (error as Error).message });
  return { code: apiError.code, err_code: apiError.errCode, description: apiError.description };
}
