/**
 * Room `jetstream/snapshot/` (this is its main file): a stream's snapshot and restore, the
 * archive format both use (`snapshot-archive.ts`), what a snapshot copies (`snapshot-content.ts`),
 * the staging directory, and the restore's checks and replay into a staging store.
 *
 * STREAM.SNAPSHOT's work: a frozen copy of the stream (snapshot-content.ts: an SQLite online
 * backup of a file stream's database, or a copy of a memory stream's messages), written out as
 * an archive (snapshot-archive.ts) in chunks to the requester's deliver subject with nats-server's flow
 * control: each chunk carries a reply subject `$JS.SNAPSHOT.ACK.<stream>.<id>.<size>.<index>`
 * the receiver acks, at most a window of unacknowledged bytes is out, and an empty message
 * without headers ends the transfer. Reading the copy, not the stream, keeps the archive
 * consistent while the stream goes on taking messages.
 */
import { rmSync } from 'node:fs';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { ApiError, jsErrors, type StreamConfig, type StreamState } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import type { JetStreamHost } from '../jetstream-host.js';
import type { JsAccount } from '../js-account.js';
import { nowNanos } from '../shared/wire-time.js';
import type { Stream } from '../stream/stream.js';
import { archiveMagic, encodeRecord } from './snapshot-archive.js';
import {
  databaseContent,
  type SnapshotContent,
  type SnapshotOptions,
  storeContent,
} from './snapshot-content.js';
import { newStagingDir } from './snapshot-staging.js';

/** nats-server's defaults: 128 KiB chunks, 8 MiB of chunks unacknowledged. */
export const DEFAULT_CHUNK_SIZE = 128 * 1024;
export const DEFAULT_WINDOW_SIZE = 8 * 1024 * 1024;
/** A chunk never exceeds the default max_payload, which every client accepts. */
const MAX_CHUNK_SIZE = 1024 * 1024;
/** How long the deliver subject may lack a subscriber before the transfer starts anyway. */
const INTEREST_WAIT_MS = 2000;
/** A receiver that acks nothing for this long has stalled: the transfer ends. */
export const ACK_STALL_MS = 10_000;

export type { SnapshotOptions } from './snapshot-content.js';

export class StreamSnapshot {
  readonly #started = nowNanos();
  #ackWaiter: (() => void) | undefined;
  #unacked = 0;

  private constructor(
    private readonly js: JetStreamHost,
    private readonly account: JsAccount,
    private readonly config: StreamConfig,
    private readonly created: bigint,
    /** The stream's state when it was copied: the API answer and the advisory report it. */
    readonly state: StreamState,
    private readonly content: SnapshotContent,
    /** The staging directory holding the copy's database, removed when done. */
    private readonly dir: string | undefined,
  ) {}

  /** Copies the stream; throws the API error nats-server answers when it cannot. */
  static async take(
    js: JetStreamHost,
    account: JsAccount,
    stream: Stream,
    options: SnapshotOptions,
  ): Promise<StreamSnapshot> {
    const { config, created } = stream;
    const state = stream.state();
    const storeDir = js.options.storeDir;
    const dir = stream.store.backup && storeDir ? newStagingDir(storeDir, account.name) : undefined;
    let content: SnapshotContent | undefined;
    try {
      content = dir ? await databaseContent(stream, dir, options) : storeContent(stream, options);
      return new StreamSnapshot(js, account, config, created, state, content, dir);
    } catch (error) {
      await content?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      throw ApiError.of(jsErrors.JSStreamSnapshotErrF, { err: (error as Error).message });
    }
  }

  /**
   * Sends the archive to `deliver` and then the empty message that ends it, which is also sent
   * when the transfer ends early (the receiver went away or stalled, or a message of the copy
   * was found damaged): the archive then lacks its end record, so no restore accepts it.
   */
  async send(deliver: string, chunkSize: number, windowSize: number): Promise<void> {
    const { client, logger, advisories } = this.js;
    const name = this.config.name;
    const ackPrefix = `$JS.SNAPSHOT.ACK.${name}.${nuid.next()}`;
    const ackSub = client.subscribe(`${ackPrefix}.>`, (message) => {
      const size = Number(message.subject.slice(ackPrefix.length + 1).split('.')[0]);
      if (Number.isSafeInteger(size)) this.#unacked -= size;
      this.#ackWaiter?.();
    });
    advisories.snapshotCreate(this.account.name, name, this.state);
    try {
      await this.#waitForInterest(deliver);
      let index = 0;
      for (const chunk of inChunks(this.#archive(), clampChunkSize(chunkSize))) {
        while (this.#unacked >= windowSize) {
          if (!(await this.#ackWithin(ACK_STALL_MS))) {
            throw new Error(`no chunk acknowledged for ${ACK_STALL_MS / 1000} s`);
          }
        }
        if (!client.hasInterest(deliver)) throw new Error('the receiver went away');
        index++;
        client.publish(deliver, chunk, { reply: `${ackPrefix}.${chunk.length}.${index}` });
        this.#unacked += chunk.length;
        // One chunk a turn: the server goes on serving everyone else during a large snapshot.
        await nextTurn();
      }
    } catch (error) {
      logger.warn(
        `Snapshot of stream '${this.account.name} > ${name}' ended early: ${(error as Error).message}`,
      );
    } finally {
      client.publish(deliver, new Uint8Array(0));
      client.unsubscribe(ackSub);
      await this.content.close();
      if (this.dir) rmSync(this.dir, { recursive: true, force: true });
      advisories.snapshotComplete(this.account.name, name, this.#started, nowNanos());
    }
  }

  *#archive(): Generator<Buffer> {
    yield archiveMagic();
    const { lastSeq, lastTime } = this.content;
    yield encodeRecord({
      kind: 'meta',
      meta: { config: this.config, created: this.created, lastSeq, lastTime },
    });
    const counts = yield* this.content.body();
    yield encodeRecord({ kind: 'end', ...counts });
  }

  async #waitForInterest(deliver: string): Promise<void> {
    for (let waited = 0; waited < INTEREST_WAIT_MS; waited += 20) {
      if (this.js.client.hasInterest(deliver)) return;
      await sleep(20);
    }
  }

  /** Whether an ack arrived within `ms`. */
  #ackWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#ackWaiter = undefined;
        resolve(false);
      }, ms);
      this.#ackWaiter = () => {
        clearTimeout(timer);
        this.#ackWaiter = undefined;
        resolve(true);
      };
    });
  }
}

function clampChunkSize(requested: number): number {
  if (requested <= 0) return DEFAULT_CHUNK_SIZE;
  return Math.min(requested, MAX_CHUNK_SIZE);
}

/** The pieces' bytes cut into chunks of `size` (the last may be shorter). */
function* inChunks(pieces: Iterable<Buffer>, size: number): Generator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for (const piece of pieces) {
    pending.push(piece);
    length += piece.length;
    if (length < size) continue;
    let joined = Buffer.concat(pending);
    while (joined.length >= size) {
      yield joined.subarray(0, size);
      joined = joined.subarray(size);
    }
    pending = [joined];
    length = joined.length;
  }
  if (length > 0) yield Buffer.concat(pending);
}
