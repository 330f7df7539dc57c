import { beforeAll, describe, expect, it } from 'vitest';
import { type KV, Kvm, type KvWatchEntry, type KvWatcher, KvWatchInclude } from '../src/kv/mod.js';
import {
  InvalidNameError,
  JetStreamApiError,
  StorageType,
  StreamNotFoundError,
} from '../src/mod.js';
import { all } from './all.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

/** Reads `count` entries of a watch, then stops it. */
async function take(watcher: KvWatcher<KvWatchEntry>, count: number) {
  const got: { key: string; value: string; op: string; isUpdate: boolean }[] = [];
  for await (const e of watcher) {
    got.push({ key: e.key, value: e.string(), op: e.operation, isUpdate: e.isUpdate });
    if (got.length === count) break;
  }
  return got;
}

describe.each(streamServers)('KV against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  let kvm: Kvm;
  beforeAll(async () => {
    kvm = new Kvm(clients.js);
  });

  const newBucket = (options = {}) => kvm.create(uniqueStream('B'), options);

  it('creates a bucket laid out as the official clients lay it out', async () => {
    const name = uniqueStream('B');
    const kv = await kvm.create(name, {
      history: 5,
      ttl: 60_000,
      max_bytes: 1 << 20,
      maxValueSize: 1024,
      storage: StorageType.Memory,
      description: 'settings',
    });
    const { config } = await clients.jsm.streams.info(`KV_${name}`);
    expect(config).toMatchObject({
      subjects: [`$KV.${name}.>`],
      max_msgs_per_subject: 5,
      max_age: 60_000_000_000,
      max_bytes: 1 << 20,
      max_msg_size: 1024,
      storage: 'memory',
      description: 'settings',
      allow_rollup_hdrs: true,
      deny_delete: true,
      allow_direct: true,
      discard: 'new',
      duplicate_window: 60_000_000_000,
    });
    // 2.10 fields are only sent when asked for
    expect(config.compression ?? 'none').toBe('none');
    expect(await kv.status()).toMatchObject({
      bucket: name,
      history: 5,
      ttl: 60_000,
      max_bytes: 1 << 20,
      maxValueSize: 1024,
      storage: 'memory',
      description: 'settings',
      values: 0,
      backingStore: 'JetStream',
    });
    // create on an existing bucket opens it as it is
    expect((await (await kvm.create(name, { history: 2 })).status()).history).toBe(5);
    expect((await (await kvm.open(name)).status()).history).toBe(5);
  });

  it('open fails for a bucket that does not exist; names are checked', async () => {
    await expect(kvm.open('NO_SUCH_BUCKET')).rejects.toBeInstanceOf(StreamNotFoundError);
    await expect(kvm.create('a.b')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('lists the buckets and only them', async () => {
    const kv = await newBucket();
    const { bucket } = await kv.status();
    await clients.jsm.streams.add({ name: uniqueStream('NOT_KV'), subjects: ['notkv.>'] });
    const listed = await all(kvm.list());
    expect(listed.map((s) => s.bucket)).toContain(bucket);
    expect(listed.every((s) => s.streamInfo.config.name === `KV_${s.bucket}`)).toBe(true);
  });

  it('puts and gets values, by last and by revision', async () => {
    const kv = await newBucket({ history: 3 });
    const r1 = await kv.put('a.b', 'one');
    const r2 = await kv.put('a.b', 'two');
    const other = await kv.put('c', 'see');
    expect((await kv.get('a.b'))?.string()).toBe('two');
    const old = await kv.get('a.b', { revision: r1 });
    expect(old).toMatchObject({ key: 'a.b', revision: r1, operation: 'PUT', length: 3 });
    expect(old?.string()).toBe('one');
    expect(r2).toBe(r1 + 1);
    // a revision of another key is not a value of this one
    expect(await kv.get('a.b', { revision: other })).toBeNull();
    expect(await kv.get('missing')).toBeNull();
  });

  it('create works only for a key with no value, also after a delete or purge', async () => {
    const kv = await newBucket();
    await kv.create('k', '1');
    await expect(kv.create('k', '2')).rejects.toBeInstanceOf(JetStreamApiError);
    await kv.delete('k');
    expect((await kv.get('k'))?.operation).toBe('DEL');
    await kv.create('k', '3');
    await kv.purge('k');
    await kv.create('k', '4');
    expect((await kv.get('k'))?.string()).toBe('4');
  });

  it('update and previousSeq check the last revision', async () => {
    const kv = await newBucket();
    const r1 = await kv.put('k', 'a');
    const r2 = await kv.update('k', 'b', r1);
    await expect(kv.update('k', 'c', r1)).rejects.toMatchObject({ code: 10071 });
    await expect(kv.put('k', 'c', { previousSeq: r1 })).rejects.toBeInstanceOf(JetStreamApiError);
    await expect(kv.delete('k', { previousSeq: r1 })).rejects.toBeInstanceOf(JetStreamApiError);
    await kv.delete('k', { previousSeq: r2 });
    expect((await kv.get('k'))?.operation).toBe('DEL');
  });

  it('keeps history; delete adds a mark, purge drops the earlier values', async () => {
    const kv = await newBucket({ history: 10 });
    await kv.put('k', 'a');
    await kv.put('k', 'b');
    await kv.delete('k');
    await kv.put('other', 'x');
    const history = (await all(await kv.history({ key: 'k' }))).map((e) => [
      e.operation,
      e.string(),
    ]);
    expect(history).toEqual([
      ['PUT', 'a'],
      ['PUT', 'b'],
      ['DEL', ''],
    ]);
    await kv.purge('k');
    const after = (await all(await kv.history({ key: 'k' }))).map((e) => e.operation);
    expect(after).toEqual(['PURGE']);
    expect((await kv.status()).values).toBe(2);
  });

  it('lists the keys that have a value, with filters', async () => {
    const kv = await newBucket();
    for (const key of ['a.1', 'a.2', 'b.1', 'gone']) await kv.put(key, 'v');
    await kv.delete('gone');
    expect((await all(await kv.keys())).sort()).toEqual(['a.1', 'a.2', 'b.1']);
    expect((await all(await kv.keys('a.*'))).sort()).toEqual(['a.1', 'a.2']);
    expect(await all(await (await newBucket()).keys())).toEqual([]);
    await expect(kv.keys('a b')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('watches: the last values first, then the updates', async () => {
    const kv = await newBucket({ history: 5 });
    await kv.put('x', '1');
    await kv.put('x', '2');
    await kv.put('y', '1');
    const watcher = await kv.watch();
    setTimeout(() => void kv.put('x', '3').then(() => kv.delete('y')), 50);
    expect(await take(watcher, 4)).toEqual([
      { key: 'x', value: '2', op: 'PUT', isUpdate: false },
      { key: 'y', value: '1', op: 'PUT', isUpdate: false },
      { key: 'x', value: '3', op: 'PUT', isUpdate: true },
      { key: 'y', value: '', op: 'DEL', isUpdate: true },
    ]);
  });

  it('watches with history, updates only, ignoring deletes, from a revision, by key', async () => {
    const kv = await newBucket({ history: 5 });
    const r1 = await kv.put('x', '1');
    await kv.put('x', '2');
    await kv.put('z', '1');
    const withHistory = await kv.watch({ key: 'x', include: KvWatchInclude.AllHistory });
    expect((await take(withHistory, 2)).map((e) => e.value)).toEqual(['1', '2']);

    const updates = await kv.watch({ include: KvWatchInclude.UpdatesOnly, ignoreDeletes: true });
    setTimeout(() => void kv.delete('x').then(() => kv.put('z', '2')), 50);
    expect(await take(updates, 1)).toEqual([{ key: 'z', value: '2', op: 'PUT', isUpdate: true }]);

    const resumed = await kv.watch({ resumeFromRevision: r1 + 1 });
    expect((await take(resumed, 2)).map((e) => `${e.key}=${e.value}`)).toEqual(['x=2', 'z=1']);
  });

  it('a mirror bucket reads its copy of the origin and writes to the origin', async () => {
    const origin = await newBucket({ history: 3 });
    const { bucket: originName } = await origin.status();
    await origin.put('k', 'from origin');
    const mirrorName = uniqueStream('M');
    const mirror = await kvm.create(mirrorName, { mirror: { name: originName } });
    const { config } = await clients.jsm.streams.info(`KV_${mirrorName}`);
    expect(config).toMatchObject({ mirror: { name: `KV_${originName}` }, mirror_direct: true });
    expect(config.subjects ?? []).toEqual([]);
    const synced = async (key: string, value: string) => {
      for (let i = 0; i < 100 && (await mirror.get(key))?.string() !== value; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      return (await mirror.get(key))?.string();
    };
    expect(await synced('k', 'from origin')).toBe('from origin');
    await mirror.put('k', 'through the mirror');
    expect((await origin.get('k'))?.string()).toBe('through the mirror');
    expect(await synced('k', 'through the mirror')).toBe('through the mirror');
    expect(await all(await mirror.keys())).toEqual(['k']);
  });

  it('refuses invalid keys before sending anything', async () => {
    const kv: KV = await newBucket();
    for (const key of ['', 'a b', '.a', 'a.', 'a..b', 'a*', '>']) {
      await expect(kv.put(key, 'v'), key).rejects.toBeInstanceOf(InvalidNameError);
    }
    await kv.put('a-b_c/d=e.f', 'fine');
  });

  it('enforces the maximum value size; destroy deletes the bucket', async () => {
    const kv = await newBucket({ maxValueSize: 8 });
    await expect(kv.put('k', 'far more than eight bytes')).rejects.toBeInstanceOf(
      JetStreamApiError,
    );
    const { bucket } = await kv.status();
    expect(await kv.destroy()).toBe(true);
    await expect(kvm.open(bucket)).rejects.toBeInstanceOf(StreamNotFoundError);
  });
});
