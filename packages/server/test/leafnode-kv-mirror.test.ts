import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Bucket, type KV, Kvm, type KvWatchEntry } from '@nats-io/kv';
import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type NatsServer, startServer } from '../src/index.js';
import {
  client,
  eventually,
  natsServerWith,
  ourLeaf,
  pause,
  recordingLogger,
} from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

// nats.c's test_KeyValueMirrorCrossDomains (test/test.c) in our words, with the official KV
// client: a hub with JetStream domain HUB holds bucket TEST, its leaf with domain LEAF a bucket
// MIRROR mirroring it through the domain. Puts on the mirror bucket go to the hub's bucket
// (`$JS.HUB.API.$KV.TEST.<key>`) and come back through the mirror; gets and watches on the leaf
// are served by the mirror, also while the hub is down.

const cleanups: (() => Promise<void> | void)[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leaf-kv-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A hub that can be stopped and started again with its store. */
interface Hub {
  readonly url: string;
  readonly leafPort: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function natsServerHub(): Promise<Hub> {
  const leafPort = await freePort();
  let server: RunningNatsServer = await startNatsServer({
    config: `server_name: HUB\njetstream { domain: HUB, store_dir: "${storeDir()}" }\nleafnodes { host: 127.0.0.1, port: ${leafPort} }`,
  });
  cleanups.push(() => server.stop());
  return {
    url: server.url,
    leafPort,
    stop: () => server.kill(),
    start: async () => {
      server = await server.restart();
    },
  };
}

async function ourHub(): Promise<Hub> {
  const leafPort = await freePort();
  const settings = {
    host: '127.0.0.1',
    port: await freePort(),
    logger: recordingLogger(),
    serverName: 'HUB',
    jetstream: { domain: 'HUB', storeDir: storeDir() },
    leafNodes: { host: '127.0.0.1', port: leafPort },
  };
  let server: NatsServer | undefined = await startServer(settings);
  cleanups.push(() => server?.close());
  return {
    url: `nats://127.0.0.1:${settings.port}`,
    leafPort,
    stop: async () => {
      await server?.close();
      server = undefined;
    },
    start: async () => {
      server = await startServer(settings);
    },
  };
}

async function ourLeafOf(hub: Hub): Promise<string> {
  const leaf = await ourLeaf(
    hub.leafPort,
    {},
    { serverName: 'LEAF', jetstream: { domain: 'LEAF', storeDir: storeDir() } },
  );
  cleanups.push(() => leaf.stop());
  return leaf.url;
}

async function natsServerLeafOf(hub: Hub): Promise<string> {
  const leaf = await natsServerWith(
    `reconnect: 1, remotes = [ { url: "nats-leaf://127.0.0.1:${hub.leafPort}" } ]`,
    undefined,
    `server_name: LEAF\njetstream { domain: LEAF, store_dir: "${storeDir()}" }`,
  );
  cleanups.push(() => leaf.stop());
  return leaf.url;
}

async function open(url: string): Promise<OfficialConnection> {
  const nc = await client(url, true);
  connections.push(nc);
  return nc;
}

/** Waits until the hub's JetStream answers through the leaf connection. */
async function hubReachable(onLeaf: OfficialConnection): Promise<void> {
  await eventually(async () => {
    const jsm = await jetstreamManager(onLeaf, { domain: 'HUB', timeout: 1_000 });
    await jsm.getAccountInfo();
  }, 20_000);
}

/** The next `count` entries of a watch, waiting at most `ms` for each. */
async function nextEntries(
  iterator: AsyncIterator<KvWatchEntry>,
  count: number,
  ms = 10_000,
): Promise<{ key: string; value: string; operation: string }[]> {
  const entries: { key: string; value: string; operation: string }[] = [];
  while (entries.length < count) {
    const next = await Promise.race([
      iterator.next(),
      pause(ms).then(() => {
        throw new Error(`only ${entries.length} of ${count} watch entries came`);
      }),
    ]);
    if (next.done) break;
    entries.push({
      key: next.value.key,
      value: next.value.string(),
      operation: next.value.operation,
    });
  }
  return entries;
}

async function currentValue(kv: KV, key: string): Promise<string | undefined> {
  const entry = await kv.get(key);
  return entry?.operation === 'PUT' ? entry.string() : undefined;
}

const pairings = [
  { name: 'a nats-server leaf of a nats-server hub', hub: natsServerHub, leaf: natsServerLeafOf },
  { name: 'our leaf of a nats-server hub', hub: natsServerHub, leaf: ourLeafOf },
  { name: 'a nats-server leaf of our hub', hub: ourHub, leaf: natsServerLeafOf },
  { name: 'our leaf of our hub', hub: ourHub, leaf: ourLeafOf },
];

describe.each(pairings)('a KV bucket mirrored across domains: $name', (pairing) => {
  it('serves the hub bucket on the leaf, takes puts through to the hub, and survives the hub going away', async () => {
    const hub = await pairing.hub();
    const leafUrl = await pairing.leaf(hub);
    const onLeaf = await open(leafUrl);
    await hubReachable(onLeaf);
    let onHub = await open(hub.url);

    const origin = await new Kvm(onHub).create('TEST');
    await origin.put('name', 'derek');
    await origin.put('age', '22');

    const leafKvm = new Kvm(onLeaf);
    // create, not open: open binds without reading the stream, so it would not know the mirror.
    const mirror = await leafKvm.create('MIRROR', { mirror: { name: 'TEST', domain: 'HUB' } });
    const leafJsm = await jetstreamManager(onLeaf);
    const info = await leafJsm.streams.info('KV_MIRROR');
    expect(info.config.mirror_direct).toBe(true);
    await eventually(async () =>
      expect((await leafJsm.streams.info('KV_MIRROR')).state.messages).toBe(2),
    );

    // A put on the leaf's bucket goes to the hub's and comes back through the mirror.
    await mirror.put('name', 'rip');
    await eventually(async () => expect(await currentValue(mirror, 'name')).toBe('rip'));

    // The hub's bucket through its domain, from the leaf.
    const remote = await new Kvm(jetstream(onLeaf, { domain: 'HUB' })).open('TEST');
    await remote.put('name', 'ivan');
    expect(await currentValue(remote, 'name')).toBe('ivan');
    await eventually(async () => expect(await currentValue(mirror, 'name')).toBe('ivan'));

    // With the hub down, the leaf's mirror still answers gets and watches.
    await onHub.close();
    await hub.stop();
    await pause(500);
    expect(await currentValue(mirror, 'name')).toBe('ivan');
    const nameWatch = await mirror.watch({ key: 'name' });
    expect(await nextEntries(nameWatch[Symbol.asyncIterator](), 1)).toEqual([
      { key: 'name', value: 'ivan', operation: 'PUT' },
    ]);
    nameWatch.stop();
    const allWatch = await mirror.watch();
    const all = allWatch[Symbol.asyncIterator]();
    expect(await nextEntries(all, 2)).toEqual([
      { key: 'age', value: '22', operation: 'PUT' },
      { key: 'name', value: 'ivan', operation: 'PUT' },
    ]);

    // Back up: deletes on the leaf's bucket reach the hub and come back to the watcher.
    await hub.start();
    onHub = await open(hub.url);
    await hubReachable(onLeaf);
    await mirror.delete('age');
    await mirror.delete('name');
    // The mirror finds its consumer on the hub gone once it has heard nothing for 10 s (as
    // nats-server 2.11's sourceHealthCheckInterval), then makes a new one.
    const deletes = await nextEntries(all, 2, 30_000);
    expect(deletes.map(({ key, operation }) => `${key} ${operation}`).sort()).toEqual([
      'age DEL',
      'name DEL',
    ]);
    allWatch.stop();
    // Bucket's own method, as nats.c's kvStore_PurgeDeletes (KV, the interface, lacks it).
    expect(mirror).toBeInstanceOf(Bucket);
    await (mirror as Bucket).purgeDeletes(-1);
    expect((await leafJsm.streams.info('KV_MIRROR')).state.messages).toBe(0);
  });
});
