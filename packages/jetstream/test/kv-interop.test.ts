import { jetstreamManager as officialJetstreamManager } from '@nats-io/jetstream';
import { Kvm as OfficialKvm } from '@nats-io/kv';
import { beforeAll, describe, expect, it } from 'vitest';
import { Kvm } from '../src/kv/mod.js';
import { useOfficialConnection } from './official.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('KV interop with @nats-io/kv against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  const official = useOfficialConnection(server);
  let ours: Kvm;
  let theirs: OfficialKvm;
  beforeAll(async () => {
    ours = new Kvm(clients.js);
    theirs = new OfficialKvm(official.nc);
  });

  it('creates the same stream as the official client for the same options', async () => {
    const options = { history: 7, ttl: 90_000, max_bytes: 4096, maxValueSize: 512 };
    const a = uniqueStream('KA');
    const b = uniqueStream('KB');
    await ours.create(a, { ...options, description: 'd' });
    await theirs.create(b, { ...options, description: 'd' });
    const jsm = await officialJetstreamManager(official.nc);
    const { config: mine } = await jsm.streams.info(`KV_${a}`);
    const { config: theirConfig } = await jsm.streams.info(`KV_${b}`);
    // deny_delete: nats.go sets it (jsapi's kvStreamConfig follows nats.go), @nats-io/kv 3.4
    // leaves it false; either client works on either bucket (the next tests)
    const comparable = (c: Record<string, unknown>, bucket: string) => ({
      ...JSON.parse(JSON.stringify(c).replaceAll(bucket, '<bucket>')),
      deny_delete: 'either',
    });
    expect(comparable(mine, a)).toEqual(comparable(theirConfig, b));
    expect(mine.deny_delete).toBe(true);
  });

  it('what we write, the official client reads', async () => {
    const name = uniqueStream('K');
    const kv = await ours.create(name, { history: 5 });
    await kv.put('user.1', JSON.stringify({ n: 1 }));
    await kv.put('user.2', 'two');
    await kv.put('user.2', 'two again');
    await kv.delete('user.1');
    await kv.put('gone', 'x');
    await kv.purge('gone');

    const their = await theirs.open(name);
    expect((await their.get('user.2'))?.string()).toBe('two again');
    expect((await their.get('user.1'))?.operation).toBe('DEL');
    expect((await their.get('gone'))?.operation).toBe('PURGE');
    const keys: string[] = [];
    for await (const k of await their.keys()) keys.push(k);
    expect(keys).toEqual(['user.2']);
    const ops: string[] = [];
    for await (const e of await their.history({ key: 'gone' })) ops.push(e.operation);
    expect(ops).toEqual(['PURGE']);
    expect(await their.create('user.1', 'back')).toBeGreaterThan(0);
  });

  it('what the official client writes, we read', async () => {
    const name = uniqueStream('K');
    const their = await theirs.create(name, { history: 5 });
    const r1 = await their.put('a', 'one');
    await their.put('a', 'two');
    await their.put('b', 'bee');
    await their.delete('b');
    await their.put('c', 'sea');
    await their.purge('c');

    const kv = await ours.open(name);
    expect((await kv.get('a'))?.string()).toBe('two');
    expect((await kv.get('a', { revision: r1 }))?.string()).toBe('one');
    expect((await kv.get('b'))?.operation).toBe('DEL');
    expect((await kv.get('c'))?.operation).toBe('PURGE');
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    expect(keys).toEqual(['a']);
    const history: string[] = [];
    for await (const e of await kv.history()) history.push(`${e.key}:${e.operation}`);
    expect(history).toEqual(['a:PUT', 'a:PUT', 'b:PUT', 'b:DEL', 'c:PURGE']);
    expect(await kv.create('b', 'again')).toBeGreaterThan(0);
    expect((await kv.status()).history).toBe(5);
  });
});
