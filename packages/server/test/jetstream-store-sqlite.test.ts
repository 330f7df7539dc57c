import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageStore, StoreLimits } from '../src/jetstream/store/message-store.js';
import { openSqliteStore, type SqliteStoreOptions } from '../src/jetstream/store/sqlite-store.js';
import {
  bytes,
  databasePath,
  limits,
  STREAM,
  temporaryDirectory,
  text,
} from './jetstream-store-kinds.js';

describe('sqlite store', () => {
  let dir: ReturnType<typeof temporaryDirectory>;
  let store: MessageStore | undefined;
  const open = (options: Partial<SqliteStoreOptions> & { limits?: StoreLimits } = {}) =>
    (store = openSqliteStore({
      name: STREAM,
      path: databasePath(dir.path),
      limits: limits(),
      ...options,
    }));
  const reopen = async (options: Partial<SqliteStoreOptions> = {}) => {
    await store?.close();
    return open(options);
  };
  /**
   * The rows a process killed now would leave: the store's connection holds its file's locks, so
   * the database and its WAL are copied and the copy opened (which replays the copied WAL).
   * `walToo` false: the rows the database file holds without its WAL (what checkpoints copied).
   */
  const rowsOnDisk = (walToo = true) => {
    const copy = `${dir.path}/killed-copy.db`;
    for (const suffix of walToo ? ['', '-wal'] : ['']) {
      rmSync(copy + suffix, { force: true });
      if (existsSync(databasePath(dir.path) + suffix)) {
        copyFileSync(databasePath(dir.path) + suffix, copy + suffix);
      }
    }
    rmSync(`${copy}-shm`, { force: true });
    const db = new Database(copy);
    try {
      return db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dir = temporaryDirectory();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    dir.remove();
  });

  it('reads ahead every payload exactly: empty, binary, compressed, with headers and gaps', async () => {
    // A read-ahead takes all its rows' payloads as one blob and cuts it by each row's length.
    const s = open({ limits: limits({ compress: true }) });
    const binary = Uint8Array.from({ length: 300 }, (_, i) => (i * 251) % 256);
    const compressible = bytes('abc'.repeat(2000));
    const payloads = [
      new Uint8Array(0),
      binary,
      new Uint8Array(0),
      compressible,
      Uint8Array.of(0, 0xff, 0xc3, 0x28, 0),
      bytes('tail'),
    ];
    const headers = bytes('NATS/1.0\r\nX: 1\r\n\r\n');
    for (const [i, payload] of payloads.entries()) {
      s.store(`p.${i}`, i % 2 === 1 ? headers : undefined, payload);
    }
    s.remove(2);
    await s.whenDurable();
    const read: { seq: number; payload: number[]; headers?: number[] }[] = [];
    for (let message = s.loadNext('>', 1); message; message = s.loadNext('>', message.seq + 1)) {
      read.push({
        seq: message.seq,
        payload: [...message.payload],
        ...(message.headers && { headers: [...message.headers] }),
      });
    }
    const expected = payloads.flatMap((payload, i) =>
      i === 1
        ? []
        : [
            {
              seq: i + 1,
              payload: [...payload],
              ...(i % 2 === 1 && { headers: [...headers] }),
            },
          ],
    );
    expect(read).toEqual(expected);
    await s.close();
    const db = new Database(databasePath(dir.path), { readonly: true });
    try {
      // The compressed row is stored compressed: the read-ahead decoded it.
      expect(db.prepare('SELECT encoding FROM messages WHERE seq = 4').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });

  it('reads ahead every field exactly: subjects in any script, headers or none, times of any size', async () => {
    // A read-ahead takes its rows' fields as one text blob (read-ahead-entries.ts); a point
    // read takes them as columns. Both must give back what was stored.
    const times = [
      7n,
      123_456_789_012_345n,
      1_234_567_890_123_456_789n,
      9_223_372_036_854_775_807n,
    ];
    const stored = [
      { subject: 'plain', headers: undefined },
      { subject: 'ünïcödé.主题.🙂', headers: bytes('NATS/1.0\r\nX: ü\r\n\r\n') },
      { subject: `long.${'x'.repeat(300)}`, headers: Uint8Array.of(0, 0x20, 0x2d, 0xff) },
      { subject: 'digits.-1.2 3', headers: undefined },
    ];
    const s = open();
    for (const [i, { subject, headers }] of stored.entries()) {
      s.store(subject, headers, bytes(`payload ${i}`), { seq: i + 1, time: times[i]! });
    }
    await s.whenDurable();
    const fields = (message: ReturnType<MessageStore['load']>) => ({
      seq: message.seq,
      subject: message.subject,
      time: message.time,
      headers: message.headers && [...message.headers],
      payload: text(message.payload),
    });
    const expected = stored.map(({ subject, headers }, i) => ({
      seq: i + 1,
      subject,
      time: times[i],
      headers: headers && [...headers],
      payload: `payload ${i}`,
    }));
    const ahead = [];
    for (let message = s.loadNext('>', 1); message; message = s.loadNext('>', message.seq + 1)) {
      ahead.push(fields(message));
    }
    expect(ahead).toEqual(expected);
    // A reopened store reads a message alone (no read-ahead yet): the same fields.
    const reopened = await reopen();
    expect(stored.map((_, i) => fields(reopened.load(i + 1)))).toEqual(expected);
  });

  it('comes back after close and reopen with the same state, deletes and sequences', async () => {
    let s = open();
    for (const subject of ['a.1', 'a.2', 'b', 'a.1', 'b', 'c'])
      s.store(subject, undefined, bytes(subject));
    s.store('h', bytes('NATS/1.0\r\nX: 1\r\n\r\n'), bytes('with headers'));
    s.remove(3);
    s.remove(7);
    s.compact(2);
    const before = s.state({ deleted: true });
    const subjects = s.subjectsState('');
    s = await reopen();
    expect(s.state({ deleted: true })).toEqual(before);
    expect(s.subjectsState('')).toEqual(subjects);
    expect(text(s.load(4).payload)).toBe('a.1');
    expect(s.store('d', undefined, bytes('d')).seq).toBe(8);

    s.purge();
    const purged = s.state();
    s = await reopen();
    expect(s.state()).toEqual(purged);
    expect(s.store('e', undefined, bytes('e')).seq).toBe(9);

    s.compact(50);
    s = await reopen();
    expect(s.state()).toMatchObject({ messages: 0, firstSeq: 50, lastSeq: 49 });
  });

  it('applies its limits to what it finds on reopen', async () => {
    let s = open();
    for (let i = 0; i < 5; i++) s.store('a', undefined, bytes(`${i}`));
    s = await reopen({ limits: limits({ maxMsgs: 2 }) });
    expect(s.state()).toMatchObject({ messages: 2, firstSeq: 4 });
  });

  it('expires on reopen what outlived max_age while closed', async () => {
    let s = open();
    s.store('a', undefined, bytes('old'));
    await s.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    s = await reopen({ limits: limits({ maxAge: 50_000_000n }) });
    expect(s.state()).toMatchObject({ messages: 0, firstSeq: 2, lastSeq: 1 });
  });

  it('counts discard new bytes as nats-server 2.9.10 file storage does (observed)', () => {
    const s = open({ limits: limits({ maxBytes: 100, discard: 'new' }) });
    s.store('B.a', undefined, new Uint8Array(40)); // stored as 22 + 3 + 40 + 8 = 73 bytes
    expect(() => s.store('B.a', undefined, new Uint8Array(27))).toThrow(
      expect.objectContaining({ code: 'max-bytes' }), // 73 + 27 reaches 100
    );
    s.store('B.a', undefined, new Uint8Array(26)); // accepted; the oldest goes to fit
    expect(s.state()).toMatchObject({ messages: 1, bytes: 59, firstSeq: 2 });

    // At its per-subject limit a message replaces the oldest if that one is larger, and
    // may then be dropped itself by max_bytes, leaving the stream empty.
    s.updateLimits(limits({ maxBytes: 100, maxMsgsPerSubject: 1, discard: 'new' }));
    s.store('B.a', undefined, new Uint8Array(40)); // 59 + 40 stays below 100: 73 stored
    expect(() => s.store('B.a', undefined, new Uint8Array(73))).toThrow(
      expect.objectContaining({ code: 'max-bytes' }), // the oldest (73) is not larger than 73
    );
    s.store('B.a', undefined, new Uint8Array(60)); // replaces 73 by 93
    s.store('B.a', undefined, new Uint8Array(73)); // replaces 93 by 106, over max_bytes
    expect(s.state()).toMatchObject({ messages: 0, firstSeq: 6, lastSeq: 5 });
  });

  it('commits the writes of one event-loop turn together, then reports them durable', async () => {
    const s = open();
    for (let i = 0; i < 100; i++) s.store('a', undefined, bytes(`${i}`));
    const durable = s.whenDurable();
    expect(rowsOnDisk()).toBe(0);
    await durable;
    expect(rowsOnDisk()).toBe(100);
    await expect(s.whenDurable()).resolves.toBeUndefined();
  });

  it('with a sync interval, commits per turn and checkpoints on a timer', async () => {
    const s = open({ sync: 20 });
    for (let i = 0; i < 10; i++) s.store('a', undefined, bytes(`${i}`));
    await s.whenDurable();
    expect(rowsOnDisk()).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 60));
    // The timer's checkpoint copied the WAL into the database (the idle one comes at 100 ms).
    expect(rowsOnDisk(false)).toBe(10);
  });

  it('fills its WAL with zeros ahead of the commits, so their syncs overwrite', async () => {
    const s = open();
    const wal = `${databasePath(dir.path)}-wal`;
    const sizes: number[] = [];
    for (let i = 0; i < 20; i++) {
      s.store('a', undefined, bytes(`message ${i}`));
      await s.whenDurable();
      sizes.push(statSync(wal).size);
    }
    // One message commits two or three 4 KiB pages: without the fill each commit grew the file;
    // with it the file grows only when SQLite's writes pass the zeros, each fill doubling it.
    expect(new Set(sizes).size).toBeLessThanOrEqual(4);
    expect(sizes.at(-1)).toBeGreaterThan(20 * 8192);
  });

  it('reads every durable message from a copy of its files taken as they are (a crash)', async () => {
    const s = open();
    for (let i = 0; i < 30; i++) {
      for (let j = 0; j <= i; j++) s.store(`a.${j}`, undefined, bytes(`message ${i}.${j}`));
      await s.whenDurable();
    }
    const copy = `${dir.path}/copy.db`;
    for (const suffix of ['', '-wal']) {
      writeFileSync(copy + suffix, readFileSync(databasePath(dir.path) + suffix));
    }
    const copied = openSqliteStore({ name: STREAM, path: copy, limits: limits() });
    try {
      expect(copied.state().messages).toBe(465);
      expect(copied.findDamaged()).toEqual([]);
      expect(text(copied.load(465).payload)).toBe('message 29.29');
    } finally {
      await copied.close();
    }
  });

  it('empties and truncates its WAL once idle, keeping every message', async () => {
    const s = open();
    for (let i = 0; i < 2000; i++) s.store('a', undefined, bytes(`message ${i}`));
    await s.whenDurable();
    const wal = `${databasePath(dir.path)}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(100_000);
    await vi.waitFor(() => expect(statSync(wal).size).toBe(0), { timeout: 5000, interval: 20 });
    expect(rowsOnDisk()).toBe(2000);
    s.store('a', undefined, bytes('after'));
    await s.whenDurable();
    expect(rowsOnDisk()).toBe(2001);
    // Starting over, the WAL is filled ahead a little, not by a whole stretch per message.
    expect(statSync(wal).size).toBeLessThan(64 * 1024);
  });

  it('keeps its file to itself while open, also after an idle checkpoint, and lets go at close', async () => {
    const otherWriter = () => {
      const db = new Database(databasePath(dir.path), { timeout: 0 });
      try {
        db.exec('DELETE FROM messages');
        return 'wrote';
      } catch (error) {
        return (error as { code?: string }).code;
      } finally {
        db.close();
      }
    };
    const s = open();
    s.store('a', undefined, bytes('one'));
    await s.whenDurable();
    expect(otherWriter()).toBe('SQLITE_BUSY');
    const wal = `${databasePath(dir.path)}-wal`;
    await vi.waitFor(() => expect(statSync(wal).size).toBe(0), { timeout: 5000, interval: 20 });
    s.store('a', undefined, bytes('two'));
    await s.whenDurable();
    expect(otherWriter()).toBe('SQLITE_BUSY');
    expect(s.state().messages).toBe(2);
    await s.close();
    expect(otherWriter()).toBe('wrote');
  });

  it('reports a message whose stored bytes changed as corrupt, naming stream and sequence', async () => {
    let s = open();
    for (let i = 1; i <= 3; i++) s.store('a', undefined, bytes(`payload-${i}`));
    await s.close();
    const db = new Database(databasePath(dir.path));
    db.prepare('UPDATE messages SET payload = ? WHERE seq = 2').run(Buffer.from('payload-X'));
    db.close();
    s = await reopen();
    expect(() => s.load(2)).toThrow(
      expect.objectContaining({ code: 'corrupt', stream: STREAM, seq: 2 }),
    );
    expect(() => s.loadNext('a', 2)).toThrow(expect.objectContaining({ code: 'corrupt' }));
    expect(text(s.load(1).payload)).toBe('payload-1');
    expect(text(s.load(3).payload)).toBe('payload-3');
    expect(s.state().messages).toBe(3); // nothing removed because it looked wrong
    expect(s.findDamaged()).toEqual([2]);
  });

  it('detects a bit flipped in the file itself', async () => {
    let s = open();
    s.store('a', undefined, bytes('before'));
    s.store('a', undefined, bytes('FLIP-ME-PLEASE'));
    s.store('a', undefined, bytes('after'));
    await s.close(); // checkpoints: the rows are in the database file
    const file = readFileSync(databasePath(dir.path));
    const at = file.indexOf('FLIP-ME-PLEASE');
    expect(at).toBeGreaterThan(0);
    file[at + 3]! ^= 0x04;
    writeFileSync(databasePath(dir.path), file);
    s = await reopen();
    expect(() => s.load(2)).toThrow(expect.objectContaining({ code: 'corrupt', seq: 2 }));
    expect(text(s.load(1).payload)).toBe('before');
    expect(text(s.load(3).payload)).toBe('after');
    expect(s.findDamaged()).toEqual([2]);
  });

  it('refuses to open a file that is not a database as corrupt, naming the stream', () => {
    writeFileSync(databasePath(dir.path), Buffer.alloc(8192, 0x5a));
    expect(() => open()).toThrow(expect.objectContaining({ code: 'corrupt', stream: STREAM }));
    expect(readFileSync(databasePath(dir.path))).toEqual(Buffer.alloc(8192, 0x5a));
  });

  it('erases a message so its bytes are no longer in the files', async () => {
    const s = open();
    s.store('a', undefined, bytes('keep-this-one'));
    s.store('a', undefined, bytes('SECRET-PAYLOAD-0123456789'));
    s.store('a', undefined, bytes('and-this-one'));
    await s.whenDurable();
    const files = () =>
      ['', '-wal']
        .map((suffix) => readFileSync(databasePath(dir.path) + suffix).toString('latin1'))
        .join('');
    expect(files()).toContain('SECRET-PAYLOAD');
    expect(s.erase(2)).toBe(true);
    await s.whenDurable();
    expect(files()).not.toContain('SECRET-PAYLOAD');
    expect(files()).toContain('keep-this-one');
    expect(s.state({ deleted: true }).deleted).toEqual([2]);
  });

  it('answers a full disk with an io error and keeps every committed message', async () => {
    let s = open({ maxPages: 40 });
    const payload = new Uint8Array(1000).fill(65);
    let committed = 0;
    let failure: unknown;
    for (let round = 0; round < 100 && !failure; round++) {
      try {
        for (let i = 0; i < 10; i++) s.store('a', undefined, payload);
        await s.whenDurable();
        committed = s.state().messages;
      } catch (error) {
        failure = error;
      }
    }
    expect(failure).toMatchObject({ code: 'io', stream: STREAM });
    expect(committed).toBeGreaterThan(0);
    // The store recounted from the file: the failed turn's messages are not counted.
    expect(s.state().messages).toBe(committed);
    expect(s.load(committed).payload.length).toBe(1000);

    s = await reopen();
    expect(s.state().messages).toBe(committed);
    // Space is back: storing resumes after the last committed sequence.
    expect(s.store('a', undefined, payload).seq).toBe(s.state().lastSeq);
    await s.whenDurable();
    expect(s.state().messages).toBe(committed + 1);
  });

  it('keeps one value per key after a full disk rolls back a turn while replaced values wait', async () => {
    const s = open({ maxPages: 40, limits: limits({ maxMsgsPerSubject: 1 }) });
    for (let i = 0; i < 300; i++) s.store(`k.${i}`, undefined, bytes(`v${i}`));
    // Rows read ahead answer the replaced values' look-ups: their deletions wait.
    s.loadNext('>', 1);
    s.loadNext('>', 17);
    let failure: unknown;
    for (let i = 17; i < 270 && !failure; i++) {
      try {
        s.store(`k.${i}`, undefined, bytes('replaced'));
        s.store(`big.${i}`, undefined, new Uint8Array(1000));
        await s.whenDurable();
      } catch (error) {
        failure = error;
      }
    }
    expect(failure).toMatchObject({ code: 'io' });
    const subjects = s.subjectsState('');
    expect([...subjects.values()].filter((state) => state.messages > 1)).toEqual([]);
    expect(s.state().messages).toBe(subjects.size);
  });

  it('rejects whenDurable when the commit of the turn fails', async () => {
    const s = open({ maxPages: 40 });
    const payload = new Uint8Array(1000).fill(66);
    const outcomes: Promise<unknown>[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        s.store('a', undefined, payload);
        if (i % 5 === 4)
          outcomes.push(
            s.whenDurable().then(
              () => 'ok',
              (error) => error,
            ),
          );
      }
    } catch (error) {
      expect(error).toMatchObject({ code: 'io' });
    }
    const results = await Promise.all(outcomes);
    expect(
      results.every((result) => result === 'ok' || (result as { code: string }).code === 'io'),
    ).toBe(true);
    expect(results.some((result) => result !== 'ok')).toBe(true);
    expect(s.state().messages).toBe(0);
  });
  /**
   * What a killed process leaves: a copy of the database and its WAL as written so far, opened
   * as the restarted server would; `check` sees it and may count the copy's rows first.
   */
  const afterKill = async (
    kv: StoreLimits,
    check: (copy: MessageStore, rowsInFile: number) => void,
  ) => {
    const image = temporaryDirectory();
    try {
      for (const suffix of ['', '-wal']) {
        copyFileSync(databasePath(dir.path) + suffix, databasePath(image.path) + suffix);
      }
      const raw = new Database(databasePath(image.path), { readonly: true });
      const rows = raw.prepare('SELECT count(*) FROM messages').pluck().get() as number;
      raw.close();
      const copy = openSqliteStore({ name: STREAM, path: databasePath(image.path), limits: kv });
      try {
        check(copy, rows);
      } finally {
        await copy.close();
      }
    } finally {
      image.remove();
    }
  };

  it('keeps the limits after a crash image taken while removals by the limits wait', async () => {
    const kv = limits({ maxMsgsPerSubject: 1 });
    const s = open({ limits: kv, sync: 60_000 });
    // 20 keys, then 10 of them replaced: the replaced values' rows may still be in the table.
    for (let i = 0; i < 30; i++) s.store(`kv.${i % 20}`, undefined, bytes(`v${i}`));
    await s.whenDurable();
    await afterKill(kv, (copy, rows) => {
      expect(rows).toBeGreaterThan(20);
      expect(copy.state()).toMatchObject({ messages: 20, firstSeq: 11, lastSeq: 30 });
      expect(copy.subjectsState('')).toEqual(s.subjectsState(''));
      expect(() => copy.load(5)).toThrow('no message found');
      expect(text(copy.load(25).payload)).toBe('v24');
    });
  });

  it('keeps deferring the rows of replaced values while each put looks up the one it replaces', async () => {
    const s = open({ limits: limits({ maxMsgsPerSubject: 1 }) });
    // A key never replaced stays first, so no replacement moves the first sequence (and reads
    // ahead): each finds the value it replaces by its sequence alone.
    s.store('kv.first', undefined, bytes('first'));
    for (let i = 0; i < 30; i++) s.store(`kv.${i % 20}`, undefined, bytes(`v${i}`));
    await s.whenDurable();
    // 10 replaced values wait to be deleted, none was deleted by the next put's look-up.
    expect(rowsOnDisk()).toBe(31);
    expect(s.state()).toMatchObject({ messages: 21, firstSeq: 1, lastSeq: 31 });
    expect(() => s.load(2)).toThrow('no message found');
    expect(text(s.load(12).payload)).toBe('v10');
    // Any other removal deletes them with it.
    expect(s.remove(1)).toBe(true);
    await s.whenDurable();
    expect(rowsOnDisk()).toBe(20);
  });

  it('finds the value a put replaces among the messages appended last, without a query', async () => {
    let s = open({ limits: limits({ maxMsgsPerSubject: 1 }) });
    s.store('kv.first', undefined, bytes('first'));
    for (let i = 0; i < 20; i++) s.store(`kv.${i}`, undefined, bytes(`v${i}`));
    const scratch = new Database(':memory:');
    const statement = Object.getPrototypeOf(scratch.prepare('SELECT 1')) as Database.Statement;
    scratch.close();
    const lookUps = vi.spyOn(statement, 'get');
    try {
      for (let i = 20; i < 30; i++) s.store(`kv.${i % 20}`, undefined, bytes(`v${i}`));
      expect(lookUps).not.toHaveBeenCalled();
    } finally {
      lookUps.mockRestore();
    }
    expect(s.state()).toMatchObject({ messages: 21, firstSeq: 1, lastSeq: 31 });
    const before = s.state();
    s = await reopen({ limits: limits({ maxMsgsPerSubject: 1 }) });
    expect(s.state()).toEqual(before);
  });

  // Below, a read from the start has the store read rows ahead, which then answer the
  // removals' look-ups: nothing else queries the table (and deletes what waits) before the kill.

  it('does not bring back a message max_msgs removed after a crash once a later one was deleted', async () => {
    const capped = limits({ maxMsgs: 20 });
    const s = open({ limits: capped, sync: 60_000 });
    for (let i = 1; i <= 20; i++) s.store(`m.${i}`, undefined, bytes(`m${i}`));
    expect(s.loadNext('>', 1)?.seq).toBe(1);
    s.store('m.21', undefined, bytes('m21')); // max_msgs removes 1
    expect(s.remove(5)).toBe(true);
    await s.whenDurable();
    await afterKill(capped, (copy) => {
      expect(copy.state()).toMatchObject({ messages: 19, firstSeq: 2, lastSeq: 21 });
      expect(() => copy.load(1)).toThrow('no message found');
    });
  });

  it('keeps a message after a crash when max_msgs removed an older one and a TTL a newer one', async () => {
    const capped = limits({ maxMsgs: 3, allowMsgTtl: true });
    const s = open({ limits: capped, sync: 60_000 });
    s.store('a', undefined, bytes('a'));
    s.store('b', undefined, bytes('b'));
    s.store('x', bytes('NATS/1.0\r\nNats-TTL: 1\r\n\r\n'), bytes('x'));
    expect(s.loadNext('>', 1)?.seq).toBe(1);
    s.store('c', undefined, bytes('c')); // max_msgs removes a
    await vi.waitFor(() => expect(s.state().messages).toBe(2), { timeout: 3000 }); // x expired
    s.store('y', undefined, bytes('y'));
    await s.whenDurable();
    await afterKill(capped, (copy) => {
      expect(copy.state()).toMatchObject({ messages: 3, firstSeq: 2, lastSeq: 5 });
      expect(text(copy.load(2).payload)).toBe('b');
    });
  });

  it('does not bring back a replaced value after a crash once the history limit was raised', async () => {
    const s = open({ limits: limits({ maxMsgsPerSubject: 1 }), sync: 60_000 });
    for (let i = 1; i <= 20; i++) s.store(`k.${i}`, undefined, bytes(`v${i}`));
    expect(s.loadNext('>', 1)?.seq).toBe(1);
    s.store('k.5', undefined, bytes('new')); // replaces 5
    const raised = limits({ maxMsgsPerSubject: 10 });
    s.updateLimits(raised);
    await s.whenDurable();
    await afterKill(raised, (copy) => {
      expect(copy.state()).toMatchObject({ messages: 20, numDeleted: 1 });
      expect(copy.subjectsState('k.5').get('k.5')).toMatchObject({ messages: 1, first: 21 });
    });
  });

  it('does not bring back a message max_bytes removed after a crash once a smaller value replaced another', async () => {
    const sizes = open();
    sizes.store('a', undefined, new Uint8Array(500));
    const big = sizes.state().bytes;
    sizes.store('f', undefined, bytes('small'));
    const small = sizes.state().bytes - big;
    store = undefined;
    await sizes.delete();
    // Room for two big messages and two small ones, not three big ones.
    const kv = limits({ maxMsgsPerSubject: 1, maxBytes: 2 * big + 2 * small });
    const s = open({ limits: kv, sync: 60_000 });
    s.store('a', undefined, new Uint8Array(500));
    s.store('b', undefined, new Uint8Array(500));
    s.store('f', undefined, bytes('small'));
    expect(s.loadNext('>', 1)?.seq).toBe(1);
    s.store('c', undefined, new Uint8Array(500)); // max_bytes removes a
    s.store('b', undefined, bytes('small')); // replaces b
    expect(s.state()).toMatchObject({ messages: 3, firstSeq: 3 });
    await s.whenDurable();
    await afterKill(kv, (copy) => {
      expect(copy.state()).toMatchObject({ messages: 3, firstSeq: 3, lastSeq: 5 });
      expect(copy.loadLast('a')).toBeUndefined();
    });
  });
});
