import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { headers } from '@slipstream/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { JetStreamApiError, JetStreamError, StorageType, StreamNotFoundError } from '../src/mod.js';
import { type ObjectStore, type ObjectWatchInfo, Objm } from '../src/objectstore/mod.js';
import { all } from './all.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251);

/** A stream of `data` in pieces of `size`, none aligned with the chunks. */
function piecesOf(data: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= data.length) return controller.close();
      controller.enqueue(data.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** Equal bytes (toEqual compares large arrays element by element: seconds for 300 kB). */
function expectBytes(actual: Uint8Array | null, expected: Uint8Array) {
  expect(actual).not.toBeNull();
  expect(Buffer.compare(actual!, expected)).toBe(0);
}

describe.each(streamServers)('object store against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  let objm: Objm;
  beforeAll(async () => {
    objm = new Objm(clients.js);
  });

  const newStore = (options = {}) => objm.create(uniqueStream('O'), options);
  const messagesOf = async (store: ObjectStore) =>
    (await clients.jsm.streams.info(`OBJ_${(await store.status()).bucket}`)).state.messages;

  it('creates a bucket laid out as the official clients lay it out', async () => {
    const name = uniqueStream('O');
    const store = await objm.create(name, { description: 'files', storage: StorageType.Memory });
    const { config } = await clients.jsm.streams.info(`OBJ_${name}`);
    expect(config).toMatchObject({
      subjects: [`$O.${name}.C.>`, `$O.${name}.M.>`],
      allow_rollup_hdrs: true,
      allow_direct: true,
      discard: 'new',
      storage: 'memory',
      description: 'files',
    });
    expect(await store.status()).toMatchObject({
      bucket: name,
      description: 'files',
      sealed: false,
      storage: 'memory',
      backingStore: 'JetStream',
    });
    expect(await all(objm.list())).toContainEqual(expect.objectContaining({ bucket: name }));
    await expect(objm.open('NO_SUCH_BUCKET')).rejects.toBeInstanceOf(StreamNotFoundError);
  });

  it('stores bytes in chunks and reads them back with their digest checked', async () => {
    const store = await newStore();
    const data = bytes(10_000, 7);
    const info = await store.putBlob(
      { name: 'a/b c.bin', description: 'd', options: { max_chunk_size: 1024 } },
      data,
    );
    expect(info).toMatchObject({ name: 'a/b c.bin', size: 10_000, chunks: 10, deleted: false });
    expect(info.digest).toMatch(/^SHA-256=[A-Za-z0-9_-]{43}=$/);
    expect(await store.info('a/b c.bin')).toMatchObject({
      size: 10_000,
      chunks: 10,
      digest: info.digest,
      revision: info.revision,
      description: 'd',
    });
    expectBytes(await store.getBlob('a/b c.bin'), data);
    expect(await messagesOf(store)).toBe(11);
  });

  it('puts from a stream, a string, a Blob and nothing', async () => {
    const store = await newStore();
    const data = bytes(300_000, 3);
    const streamed = await store.put({ name: 'streamed' }, piecesOf(data, 7777));
    expect(streamed).toMatchObject({ size: 300_000, chunks: 3 });
    expectBytes(await store.getBlob('streamed'), data);
    await store.put({ name: 'text' }, 'héllo');
    expect(new TextDecoder().decode((await store.getBlob('text'))!)).toBe('héllo');
    await store.put({ name: 'blob' }, new Blob([data.subarray(0, 5), data.subarray(5, 9)]));
    expectBytes(await store.getBlob('blob'), data.subarray(0, 9));
    expect(await store.putBlob({ name: 'empty' }, null)).toMatchObject({ size: 0, chunks: 0 });
    expectBytes(await store.getBlob('empty'), new Uint8Array(0));
    expect(await store.getBlob('missing')).toBeNull();
  });

  it('puts a file from disk through a file-backed Blob', async () => {
    const store = await newStore();
    const dir = await mkdtemp(join(tmpdir(), 'objstore-'));
    try {
      const file = join(dir, 'data.bin');
      const data = bytes(1_000_000, 11);
      await writeFile(file, data);
      const info = await store.put({ name: 'data.bin' }, await openAsBlob(file));
      expect(info).toMatchObject({ size: 1_000_000, chunks: 8 });
      expectBytes(await store.getBlob('data.bin'), data);
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('a new version replaces the old one and purges its chunks', async () => {
    const store = await newStore();
    const first = await store.putBlob({ name: 'o', options: { max_chunk_size: 100 } }, bytes(450));
    await store.putBlob({ name: 'o', options: { max_chunk_size: 100 } }, bytes(250, 3));
    expectBytes(await store.getBlob('o'), bytes(250, 3));
    expect(await messagesOf(store)).toBe(3 + 1);
    await expect(
      store.putBlob({ name: 'o' }, bytes(1), { previousRevision: first.revision }),
    ).rejects.toBeInstanceOf(JetStreamApiError);
  });

  it('get fails when the content does not match the digest', async () => {
    const store = await newStore();
    const info = await store.putBlob({ name: 'o' }, bytes(5000));
    const { bucket } = await store.status();
    // the info rewritten with the digest of other content
    const forged = { ...info, digest: (await store.putBlob({ name: 'x' }, bytes(9))).digest };
    const h = headers();
    h.set('Nats-Rollup', 'sub');
    const metaSubject = `$O.${bucket}.M.${btoa('o').replace(/\+/g, '-').replace(/\//g, '_')}`;
    await clients.js.publish(metaSubject, JSON.stringify(forged), { headers: h });
    const result = await store.get('o');
    await expect(new Response(result!.data).arrayBuffer()).rejects.toThrow(/digest/);
    expect(await result!.error).toBeInstanceOf(JetStreamError);
  });

  it('deletes: the info says so, the chunks go, list and get leave it out', async () => {
    const store = await newStore();
    await store.putBlob({ name: 'keep' }, bytes(10));
    await store.putBlob({ name: 'gone', options: { max_chunk_size: 4 } }, bytes(10));
    const purged = await store.delete('gone');
    expect(purged).toMatchObject({ success: true, purged: 3 });
    expect(await store.info('gone')).toMatchObject({ deleted: true, size: 0, chunks: 0 });
    expect(await store.get('gone')).toBeNull();
    expect((await store.list()).map((i) => i.name)).toEqual(['keep']);
  });

  it('updates meta and renames; a taken name is refused', async () => {
    const store = await newStore();
    await store.putBlob({ name: 'a' }, bytes(20));
    await store.putBlob({ name: 'b' }, bytes(5));
    await store.update('a', { description: 'first', metadata: { k: 'v' } });
    expect(await store.info('a')).toMatchObject({ description: 'first', metadata: { k: 'v' } });
    await expect(store.update('a', { name: 'b' })).rejects.toThrow(/already exists/);
    await store.update('a', { name: 'c' });
    expect(await store.info('a')).toBeNull();
    expect(await store.info('c')).toMatchObject({ description: 'first', size: 20 });
    expectBytes(await store.getBlob('c'), bytes(20));
  });

  it('links to objects and to buckets', async () => {
    const store = await newStore();
    const other = await newStore();
    const target = await other.putBlob({ name: 'target' }, bytes(3000, 5));
    const link = await store.link('shortcut', target);
    expect(link.options?.link).toEqual({ bucket: (await other.status()).bucket, name: 'target' });
    expectBytes(await store.getBlob('shortcut'), bytes(3000, 5));
    const bucketLink = await store.linkStore('everything', other);
    expect(bucketLink.options?.link).toEqual({ bucket: (await other.status()).bucket });
    await expect(store.get('everything')).rejects.toThrow(/link to a bucket/);
    await expect(store.link('again', link)).rejects.toThrow(/cannot be linked/);
    await other.delete('target');
    await expect(store.link('dead', (await other.info('target'))!)).rejects.toThrow(/deleted/);
  });

  it('watches the infos: what is there, then the changes', async () => {
    const store = await newStore();
    await store.putBlob({ name: 'one' }, bytes(1));
    const watcher = await store.watch();
    setTimeout(
      () => void store.putBlob({ name: 'two' }, bytes(2)).then(() => store.delete('one')),
      50,
    );
    const seen: Pick<ObjectWatchInfo, 'name' | 'deleted' | 'isUpdate'>[] = [];
    for await (const { name, deleted, isUpdate } of watcher) {
      seen.push({ name, deleted, isUpdate });
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([
      { name: 'one', deleted: false, isUpdate: false },
      { name: 'two', deleted: false, isUpdate: true },
      { name: 'one', deleted: true, isUpdate: true },
    ]);
    // metadata subjects roll up: the history of a name is its last info
    const history = await store.watch({ includeHistory: true });
    const versions: string[] = [];
    for await (const info of history) {
      versions.push(`${info.name}${info.deleted ? ' (deleted)' : ''}`);
      if (versions.length === 2) break;
    }
    expect(versions).toEqual(['two', 'one (deleted)']);
    const quiet = await store.watch({ ignoreDeletes: true });
    setTimeout(() => void store.putBlob({ name: 'three' }, bytes(3)), 50);
    const names: string[] = [];
    for await (const info of quiet) {
      names.push(info.name);
      if (names.length === 2) break;
    }
    expect(names).toEqual(['two', 'three']);
  });

  it('seal makes the bucket read-only; destroy deletes it', async () => {
    const store = await newStore();
    await store.putBlob({ name: 'o' }, bytes(10));
    expect((await store.seal()).sealed).toBe(true);
    await expect(store.putBlob({ name: 'p' }, bytes(10))).rejects.toBeInstanceOf(JetStreamApiError);
    expectBytes(await store.getBlob('o'), bytes(10));
    const { bucket } = await store.status();
    expect(await store.destroy()).toBe(true);
    await expect(objm.open(bucket)).rejects.toBeInstanceOf(StreamNotFoundError);
  });
});
