import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CommitGroup } from '../src/jetstream/store/commit-group.js';

let db: Database.Database;
let syncs: number;
let group: CommitGroup;

const turn = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER)');
  syncs = 0;
  group = new CommitGroup(db, {
    beforeCommit: () => {},
    afterCommit: () => {},
    lostWrites: () => {},
    translate: (error) => error as Error,
    sync: async () => {
      syncs++;
    },
  });
});
afterEach(() => db.close());

const insert = () => db.prepare('INSERT INTO t VALUES (1)').run();

it('syncs each commit that holds a synced write, once per turn', async () => {
  group.write(insert);
  group.write(insert);
  await group.whenDurable();
  expect(syncs).toBe(1);
  group.write(insert);
  await turn();
  await turn();
  expect(syncs).toBe(2);
});

it('commits bookkeeping alone without a sync, and syncs it when someone waits', async () => {
  group.write(insert, false);
  await turn();
  await turn();
  expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
  expect(syncs).toBe(0);
  await group.whenDurable();
  expect(syncs).toBe(1);
  await group.whenDurable();
  expect(syncs).toBe(1);
});

it('syncs bookkeeping with a waiter in the same turn', async () => {
  group.write(insert, false);
  await group.whenDurable();
  expect(syncs).toBe(1);
});

it("writes a synced group's answers at the turn's end before the next group commits", async () => {
  const events: string[] = [];
  let finishSync = () => {};
  const pipelined = new CommitGroup(db, {
    beforeCommit: () => events.push('commit'),
    afterCommit: () => {},
    lostWrites: () => {},
    translate: (error) => error as Error,
    sync: () => new Promise<void>((resolve) => (finishSync = resolve)),
  });
  pipelined.write(insert);
  // As a connection does with a PubAck: queued when durable, written at the turn's end.
  void pipelined.whenDurable().then(() => setImmediate(() => events.push('answers written')));
  await turn();
  pipelined.write(insert); // joins the group that commits once the first sync is done
  await turn();
  expect(events).toEqual(['commit']);
  finishSync();
  await turn();
  await turn();
  expect(events).toEqual(['commit', 'answers written', 'commit']);
});

it('syncs a lone synced write on the calling thread and a group of them on the thread pool', async () => {
  const calls: string[] = [];
  const both = new CommitGroup(db, {
    beforeCommit: () => {},
    afterCommit: () => {},
    lostWrites: () => {},
    translate: (error) => error as Error,
    sync: async () => {
      calls.push('thread pool');
    },
    syncNow: () => {
      calls.push('now');
    },
  });
  both.write(insert);
  await both.whenDurable();
  both.write(insert);
  both.write(insert);
  await both.whenDurable();
  expect(calls).toEqual(['now', 'thread pool']);
});

it('rejects the waiter of a lone write whose sync on the calling thread fails', async () => {
  const failing = new CommitGroup(db, {
    beforeCommit: () => {},
    afterCommit: () => {},
    lostWrites: () => {},
    translate: (error) => error as Error,
    sync: async () => {},
    syncNow: () => {
      throw new Error('EIO');
    },
  });
  failing.write(insert);
  await expect(failing.whenDurable()).rejects.toThrow('EIO');
});
