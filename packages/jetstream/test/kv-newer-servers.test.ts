import { beforeAll, describe, expect, it } from 'vitest';
import { Kvm } from '../src/kv/mod.js';
import { all } from './all.js';
import { ourServers, presentAs, uniqueStream, useJetStreamClients } from './servers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` every 100 ms until it answers `expected`, for up to `ms`. */
async function eventually<T>(read: () => Promise<T>, expected: T, ms = 5000): Promise<T> {
  let last = await read();
  for (const end = Date.now() + ms; JSON.stringify(last) !== JSON.stringify(expected); ) {
    if (Date.now() > end) break;
    await sleep(100);
    last = await read();
  }
  return last;
}

// Features of nats-server 2.10 (sources with subject transforms) and 2.11 (per-message TTLs):
// our server has them, and is presented as 2.11 whatever its INFO says.
describe.each(ourServers)('KV buckets with 2.10 / 2.11 stream features against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  const kvm = () => {
    presentAs(clients.nc, '2.11.0');
    return new Kvm(clients.js);
  };

  it('sources: a bucket gathers the keys of others under its own name', async () => {
    const [a, b, all_] = [uniqueStream('SA'), uniqueStream('SB'), uniqueStream('SALL')];
    const bucketA = await kvm().create(a);
    const bucketB = await kvm().create(b);
    await bucketA.put('x', 'from a');
    await bucketB.put('y', 'from b');
    const gathered = await kvm().create(all_, { sources: [{ name: a }, { name: `KV_${b}` }] });
    const { config } = await clients.jsm.streams.info(`KV_${all_}`);
    expect(config.subjects).toEqual([`$KV.${all_}.>`]);
    expect(config.sources).toEqual([
      expect.objectContaining({
        name: `KV_${a}`,
        subject_transforms: [{ src: `$KV.${a}.>`, dest: `$KV.${all_}.>` }],
      }),
      expect.objectContaining({
        name: `KV_${b}`,
        subject_transforms: [{ src: `$KV.${b}.>`, dest: `$KV.${all_}.>` }],
      }),
    ]);
    const value = async (key: string) => (await gathered.get(key))?.string() ?? null;
    expect(await eventually(() => value('x'), 'from a')).toBe('from a');
    expect(await eventually(() => value('y'), 'from b')).toBe('from b');
    await bucketA.put('x', 'again');
    expect(await eventually(() => value('x'), 'again')).toBe('again');
    const keys = await all(await gathered.keys());
    expect(keys.sort()).toEqual(['x', 'y']);
  });

  it('sources: an external source keeps its subjects (the request as sent)', async () => {
    const into = uniqueStream('EXT');
    const sent: { config?: unknown }[] = [];
    const spy = clients.nc.subscribe(`$JS.API.STREAM.CREATE.KV_${into}`, {
      callback: (_e, m) => {
        sent.push(m.json());
      },
    });
    // whether the server can reach that API does not matter here, only what the client asks for
    await kvm()
      .create(into, { sources: [{ name: 'elsewhere', external: { api: '$JS.other.API' } }] })
      .catch(() => undefined);
    await clients.nc.flush();
    spy.unsubscribe();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      sources: [{ name: 'KV_elsewhere', external: { api: '$JS.other.API' } }],
    });
    expect(JSON.stringify(sent[0])).not.toContain('subject_transforms');
  });

  it('markerTTL turns on per-key TTLs; status tells it', async () => {
    const name = uniqueStream('TTL');
    const kv = await kvm().create(name, { markerTTL: 2000 });
    const { config } = await clients.jsm.streams.info(`KV_${name}`);
    expect(config).toMatchObject({ allow_msg_ttl: true, subject_delete_marker_ttl: 2_000_000_000 });
    expect((await kv.status()).markerTTL).toBe(2000);
  });

  it('create(key, value, ttl): the value goes after its ttl, and create works again', async () => {
    const kv = await kvm().create(uniqueStream('TTL'), { markerTTL: 5000 });
    const revision = await kv.create('session', 'open', '1s');
    const stored = await clients.jsm.streams.getMessage(`KV_${(await kv.status()).bucket}`, {
      seq: revision,
    });
    expect(stored!.header.get('Nats-TTL')).toBe('1s');
    expect((await kv.get('session'))?.string()).toBe('open');
    expect(await eventually(() => kv.get('session'), null)).toBeNull();
    expect(await kv.create('session', 'reopened')).toBeGreaterThan(revision);
  });

  it("a value the bucket's ttl removed reads as a purge (the server's marker)", async () => {
    const kv = await kvm().create(uniqueStream('TTL'), { ttl: 1000, markerTTL: 5000 });
    await kv.put('k', 'v');
    const read = async () => (await kv.get('k'))?.operation;
    expect(await eventually(read, 'PURGE')).toBe('PURGE');
    const watched = await kv.watch({ key: 'k' });
    for await (const e of watched) {
      expect(e.operation).toBe('PURGE');
      break;
    }
  });

  it('purge(key, { ttl }): the purge marker itself goes after the ttl', async () => {
    const kv = await kvm().create(uniqueStream('TTL'), { markerTTL: 5000 });
    await kv.put('k', 'v');
    await kv.purge('k', { ttl: '1s' });
    const marker = await kv.get('k');
    expect(marker?.operation).toBe('PURGE');
    const stream = `KV_${(await kv.status()).bucket}`;
    const stored = await clients.jsm.streams.getMessage(stream, { seq: marker!.revision });
    expect(stored!.header.get('Nats-TTL')).toBe('1s');
    expect(await eventually(() => kv.get('k'), null)).toBeNull();
  });
});

describe.each(ourServers)('KV features newer than the server against $name as 2.9.10', (kind) => {
  const { clients } = useJetStreamClients(kind);
  beforeAll(() => presentAs(clients.nc, '2.9.10'));

  it('refuses sources, markerTTL and per-key TTLs before anything is sent', async () => {
    const kvm = new Kvm(clients.js);
    await expect(
      kvm.create(uniqueStream('R'), { sources: [{ name: 'other' }] }),
    ).rejects.toMatchObject({
      message: "stream sources 'subject_transforms' requires server 2.10.0",
    });
    await expect(kvm.create(uniqueStream('R'), { markerTTL: 1000 })).rejects.toMatchObject({
      message: "stream 'allow_msg_ttl' requires server 2.11.0",
    });
    const kv = await kvm.create(uniqueStream('R'));
    await expect(kv.create('k', 'v', '1s')).rejects.toMatchObject({
      message: "publish 'ttl' requires server 2.11.0",
    });
    await expect(kv.purge('k', { ttl: '1s' })).rejects.toMatchObject({
      message: "publish 'ttl' requires server 2.11.0",
    });
    expect(await kv.get('k')).toBeNull();
  });
});
