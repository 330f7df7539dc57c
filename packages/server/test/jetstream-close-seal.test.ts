/**
 * The seal a file store leaves at a clean close (close-seal.ts): a reopen takes its counts
 * instead of counting every row, and a start skips the inspection of every message, as
 * nats-server trusts the state it writes at a clean shutdown (filestore.go's writeFullState and
 * recoverFullState). Any change to the file after the close, or to the seal itself, means the
 * counts come from the file again and the inspection runs.
 */
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import { sealClosedStore, sealedSummary } from '../src/jetstream/store/close-seal.js';
import { lastSequencePath, readLastSequence } from '../src/jetstream/store/last-sequence-file.js';
import type { LogSummary } from '../src/jetstream/store/message-log.js';
import type { MessageStore } from '../src/jetstream/store/message-store.js';
import { openSqliteStore } from '../src/jetstream/store/sqlite-store.js';
import { internalClientOf } from '../src/server.js';
import {
  bytes,
  databasePath,
  limits,
  STREAM,
  temporaryDirectory,
} from './jetstream-store-kinds.js';

const inspections = vi.hoisted(() => ({ files: [] as string[] }));
vi.mock('../src/jetstream/store/sqlite-salvage.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/jetstream/store/sqlite-salvage.js')>();
  return {
    ...actual,
    inspectSqliteFile: (file: string, ...rest: [never]) => {
      inspections.files.push(file);
      return actual.inspectSqliteFile(file, ...rest);
    },
  };
});

const sealOf = (database: string) => join(dirname(database), 'messages.sealed');

/** Rewrites one byte of `file` with the value it already has: the content is the same, its ctime is not. */
function touchInPlace(file: string, offset: number): void {
  const fd = openSync(file, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, offset);
    writeSync(fd, byte, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

describe('a file store closed cleanly', () => {
  let dir: ReturnType<typeof temporaryDirectory>;
  let store: MessageStore | undefined;
  const open = (sealed?: LogSummary) =>
    (store = openSqliteStore({
      name: STREAM,
      path: databasePath(dir.path),
      limits: limits(),
      sealed,
    }));
  /** What a start finds: the seal's counts when it matches the file and messages.last. */
  const sealedNow = () => {
    const recorded = readLastSequence(lastSequencePath(dir.path));
    return sealedSummary(database(), recorded && !('damaged' in recorded) ? recorded : undefined);
  };
  /** Opened as a start opens it. */
  const reopen = () => open(sealedNow());
  const database = () => databasePath(dir.path);

  beforeEach(() => {
    dir = temporaryDirectory();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    dir.remove();
  });

  async function filledAndClosed() {
    const s = open();
    for (const subject of ['a', 'b', 'a', 'c', 'a']) s.store(subject, undefined, bytes(subject));
    s.remove(2);
    const state = s.state();
    const subjects = s.subjectsState('');
    await s.close();
    store = undefined;
    return { state, subjects };
  }

  it('leaves a seal that the next open takes its counts from, then breaks it', async () => {
    const before = await filledAndClosed();
    expect(sealedNow()).toBeDefined();
    const s = reopen();
    expect(existsSync(sealOf(database()))).toBe(false);
    expect(s.state()).toEqual(before.state);
    expect(s.subjectsState('')).toEqual(before.subjects);
    // Counting goes on from the sealed counts.
    s.store('b', undefined, bytes('b'));
    expect(s.state().messages).toBe(before.state.messages + 1);
    expect(s.subjectsState('b')).toEqual(new Map([['b', { messages: 1, first: 6, last: 6 }]]));
    expect(s.state().lastSeq).toBe(6);
  });

  it('is trusted for its counts only while it matches the file: a seal of other counts shows them', async () => {
    await filledAndClosed();
    // A seal written for this very file with made-up counts: what the reopen reports proves
    // where its counts came from.
    sealClosedStore(database(), {
      subjects: new Map([['z', { messages: 7, first: 1, last: 5 }]]),
      bytes: 1234,
      lastSeq: 5,
      lastTime: 1n,
    });
    expect(reopen().subjectsState('')).toEqual(
      new Map([['z', { messages: 7, first: 1, last: 5 }]]),
    );
  });

  it('counts from the file once the file changed after the close, even to the same bytes', async () => {
    const before = await filledAndClosed();
    sealClosedStore(database(), {
      subjects: new Map([['z', { messages: 7, first: 1, last: 5 }]]),
      bytes: 1234,
      lastSeq: 5,
      lastTime: 1n,
    });
    touchInPlace(database(), 100);
    expect(sealedNow()).toBeUndefined();
    expect(reopen().subjectsState('')).toEqual(before.subjects);
  });

  it('ignores a damaged seal, a WAL beside the file and a messages.last at another sequence', async () => {
    const before = await filledAndClosed();
    const seal = readFileSync(sealOf(database()));
    const lastFile = join(dirname(database()), 'messages.last');
    const last = readFileSync(lastFile);

    const flipped = Buffer.from(seal);
    flipped[seal.indexOf('"a"') + 1] ^= 0x01;
    writeFileSync(sealOf(database()), flipped);
    expect(sealedNow()).toBeUndefined();

    writeFileSync(sealOf(database()), seal);
    expect(sealedNow()).toBeDefined();
    writeFileSync(`${database()}-wal`, '');
    expect(sealedNow()).toBeUndefined();
    await rm(`${database()}-wal`);

    // messages.last of sequence 4: a sequence the seal was not closed at.
    const fd = openSync(lastFile, 'r+');
    const other = Buffer.from(last);
    other.writeBigUInt64BE(4n, 0);
    const { crc32 } = await import('node:zlib');
    other.writeUInt32BE(crc32(other.subarray(0, 16)), 16);
    writeSync(fd, other, 0, other.length, 0);
    closeSync(fd);
    expect(sealedNow()).toBeUndefined();
    expect(reopen().subjectsState('')).toEqual(before.subjects);
  });
});

describe('a server restarted on a store it closed cleanly', () => {
  let server: NatsServer | undefined;
  let dir: string;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const start = async () => {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      jetstream: { storeDir: dir },
    });
    return internalClientOf(server);
  };
  const stop = async () => {
    await server?.close();
    server = undefined;
  };

  it('skips the inspection of every message, and inspects again once the file changed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'slipstream-seal-'));
    const client = await start();
    const request = (subject: string, body: string, via = client) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const inbox = `_INBOX.seal.${Math.random()}`;
        const sub = via.subscribe(inbox, (message) => {
          via.unsubscribe(sub);
          resolve(JSON.parse(new TextDecoder().decode(message.payload)));
        });
        via.publish(subject, new TextEncoder().encode(body), { reply: inbox });
      });
    await request('$JS.API.STREAM.CREATE.S', JSON.stringify({ name: 'S', subjects: ['s.>'] }));
    for (let i = 0; i < 10; i++) await request(`s.${i % 3}`, `m${i}`);
    await stop();

    const file = join(dir, 'jetstream', '%24G', 'streams', 'S', 'messages.db');
    inspections.files = [];
    const again = await start();
    expect(inspections.files).toEqual([]);
    const info = await request('$JS.API.STREAM.INFO.S', '', again);
    expect(info.state).toMatchObject({ messages: 10, first_seq: 1, last_seq: 10 });
    await stop();

    touchInPlace(file, 0);
    await start();
    expect(inspections.files).toEqual([file]);
  });
});
