import { jetstreamManager as officialJetstreamManager } from '@nats-io/jetstream';
import { Objm as OfficialObjm } from '@nats-io/obj';
import { beforeAll, describe, expect, it } from 'vitest';
import { Objm } from '../src/objectstore/mod.js';
import { useOfficialConnection } from './official.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

const bytes = (n: number, seed = 1) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * seed) % 251;
  return out;
};
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.compare(a, b) === 0;

describe.each(streamServers)('object store interop with @nats-io/obj against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  const official = useOfficialConnection(server);
  let ours: Objm;
  let theirs: OfficialObjm;
  beforeAll(async () => {
    ours = new Objm(clients.js);
    theirs = new OfficialObjm(official.nc);
  });

  it('creates the same stream as the official client', async () => {
    const a = uniqueStream('OA');
    const b = uniqueStream('OB');
    await ours.create(a, { description: 'd', max_bytes: 1 << 20 });
    await theirs.create(b, { description: 'd', max_bytes: 1 << 20 });
    const jsm = await officialJetstreamManager(official.nc);
    const comparable = async (bucket: string) =>
      JSON.parse(
        JSON.stringify((await jsm.streams.info(`OBJ_${bucket}`)).config).replaceAll(bucket, '<b>'),
      );
    expect(await comparable(a)).toEqual(await comparable(b));
  });

  it('what we store, the official client reads (digest checked by it)', async () => {
    const name = uniqueStream('O');
    const store = await ours.create(name);
    const data = bytes(400_000, 3);
    await store.putBlob({ name: 'big.bin', description: 'x', metadata: { m: '1' } }, data);
    await store.putBlob({ name: 'gone' }, bytes(10));
    await store.delete('gone');
    await store.link('alias', (await store.info('big.bin'))!);

    const their = await theirs.open(name);
    const result = await their.get('big.bin');
    const read = new Uint8Array(await new Response(result!.data).arrayBuffer());
    // @nats-io/obj resolves it with undefined when all is well
    expect((await result!.error) ?? null).toBeNull();
    expect(same(read, data)).toBe(true);
    expect(await their.info('big.bin')).toMatchObject({
      size: 400_000,
      chunks: 4,
      description: 'x',
      metadata: { m: '1' },
    });
    expect(await their.get('gone')).toBeNull();
    expect(same(await their.getBlob('alias'), data)).toBe(true);
    expect((await their.list()).map((i) => i.name).sort()).toEqual(['alias', 'big.bin']);
  });

  it('what the official client stores, we read', async () => {
    const name = uniqueStream('O');
    const their = await theirs.create(name);
    const data = bytes(300_000, 7);
    await their.putBlob({ name: 'their.bin', options: { max_chunk_size: 65_536 } }, data);
    await their.putBlob({ name: 'gone' }, bytes(10));
    await their.delete('gone');
    await their.link('alias', (await their.info('their.bin'))!);

    const store = await ours.open(name);
    expect(await store.info('their.bin')).toMatchObject({ size: 300_000, chunks: 5 });
    const result = await store.get('their.bin');
    const read = new Uint8Array(await new Response(result!.data).arrayBuffer());
    expect(await result!.error).toBeNull();
    expect(same(read, data)).toBe(true);
    expect(await store.get('gone')).toBeNull();
    expect(same(await store.getBlob('alias'), data)).toBe(true);
    expect((await store.list()).map((i) => i.name).sort()).toEqual(['alias', 'their.bin']);
  });
});
