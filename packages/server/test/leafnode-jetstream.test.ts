import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { client, eventually, ourHub, ourLeaf } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

// JetStream across a leaf connection with domains, as nats-server 2.9.10 does it: each side's
// API stays its own ($JS.API does not cross), and each side's `$JS.<domain>.API` reaches it from
// the other side.

const running: { stop(): Promise<void> }[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function open(url: string): Promise<OfficialConnection> {
  const nc = await client(url);
  connections.push(nc);
  return nc;
}

/** Waits for the domain's API to answer across the leaf connection, then returns its manager. */
async function managerOf(nc: OfficialConnection, domain: string) {
  return eventually(async () => {
    const jsm = await jetstreamManager(nc, { domain, timeout: 1_000 });
    await jsm.getAccountInfo();
    return jsm;
  });
}

const hubs = [
  {
    name: 'a nats-server hub (domain HUB)',
    start: async () => {
      const leafPort = await freePort();
      // Its own jetstream block: startNatsServer's `jetstream` option would replace this one.
      const store = mkdtempSync(join(tmpdir(), 'leaf-js-hub-'));
      const hub = await startNatsServer({
        config: `jetstream { domain: HUB, store_dir: "${store}" }\nleafnodes { host: 127.0.0.1, port: ${leafPort} }`,
      });
      return {
        url: hub.url,
        leafPort,
        stop: async () => {
          await hub.stop();
          rmSync(store, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'our hub (domain HUB)',
    start: async () => {
      const hub = await ourHub(undefined, { jetstream: { domain: 'HUB' } });
      return { url: hub.url, leafPort: hub.leafPort!, stop: () => hub.stop() };
    },
  },
];

describe.each(hubs)('our leaf (domain EDGE) of $name', (kind) => {
  it("reaches the other side's JetStream through its domain, both ways", async () => {
    const hub = await kind.start();
    running.push(hub);
    const leaf = await ourLeaf(hub.leafPort, {}, { jetstream: { domain: 'EDGE' } });
    running.push(leaf);
    const onHub = await open(hub.url);
    const onLeaf = await open(leaf.url);

    const hubFromLeaf = await managerOf(onLeaf, 'HUB');
    await hubFromLeaf.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    const edgeFromHub = await managerOf(onHub, 'EDGE');
    await edgeFromHub.streams.add({ name: 'SENSORS', subjects: ['sensors.>'] });

    // Each stream lives on its own side only: the local API does not cross.
    const hubLocal = await jetstreamManager(onHub);
    const leafLocal = await jetstreamManager(onLeaf);
    expect((await hubLocal.streams.names().next()).sort()).toEqual(['ORDERS']);
    expect((await leafLocal.streams.names().next()).sort()).toEqual(['SENSORS']);
    expect((await leafLocal.getAccountInfo()).domain).toBe('EDGE');
    expect((await hubFromLeaf.getAccountInfo()).domain).toBe('HUB');
    expect((await edgeFromHub.getAccountInfo()).domain).toBe('EDGE');
  });

  it('sources a hub stream into a leaf stream through the domain, and the reverse', async () => {
    const hub = await kind.start();
    running.push(hub);
    const leaf = await ourLeaf(hub.leafPort, {}, { jetstream: { domain: 'EDGE' } });
    running.push(leaf);
    const onHub = await open(hub.url);
    const onLeaf = await open(leaf.url);
    const hubLocal = await jetstreamManager(onHub);
    const leafLocal = await jetstreamManager(onLeaf);
    await managerOf(onLeaf, 'HUB');
    await managerOf(onHub, 'EDGE');
    await hubLocal.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    await leafLocal.streams.add({ name: 'READINGS', subjects: ['readings.>'] });
    await leafLocal.streams.add({
      name: 'ORDERS_COPY',
      sources: [{ name: 'ORDERS', domain: 'HUB' }],
    });
    await hubLocal.streams.add({
      name: 'READINGS_COPY',
      sources: [{ name: 'READINGS', domain: 'EDGE' }],
    });
    for (let i = 0; i < 5; i++) {
      onHub.publish(`orders.${i}`, `o${i}`);
      onLeaf.publish(`readings.${i}`, `r${i}`);
    }
    await eventually(async () => {
      expect((await leafLocal.streams.info('ORDERS_COPY')).state.messages).toBe(5);
      expect((await hubLocal.streams.info('READINGS_COPY')).state.messages).toBe(5);
    }, 20_000);
    // Stored under the subjects they were published on (a delivery shows the stream subject).
    expect((await leafLocal.streams.getMessage('ORDERS_COPY', { seq: 1 }))?.subject).toBe(
      'orders.0',
    );
    expect((await hubLocal.streams.getMessage('READINGS_COPY', { seq: 1 }))?.subject).toBe(
      'readings.0',
    );
  });
});

describe('our leaf (domain EDGE) of a nats-server hub (domain HUB) that restarts', () => {
  it('mirrors a hub stream through the domain and catches up after the link comes back', async () => {
    const leafPort = await freePort();
    const store = mkdtempSync(join(tmpdir(), 'leaf-js-hub-'));
    let hub = await startNatsServer({
      config: `jetstream { domain: HUB, store_dir: "${store}" }\nleafnodes { host: 127.0.0.1, port: ${leafPort} }`,
    });
    running.push({
      stop: async () => {
        await hub.stop();
        rmSync(store, { recursive: true, force: true });
      },
    });
    const leaf = await ourLeaf(leafPort, {}, { jetstream: { domain: 'EDGE' } });
    running.push(leaf);
    const onLeaf = await open(leaf.url);
    let onHub = await open(hub.url);
    await jetstreamManager(onHub).then((jsm) =>
      jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'] }),
    );
    await managerOf(onLeaf, 'HUB');
    const leafLocal = await jetstreamManager(onLeaf);
    await leafLocal.streams.add({
      name: 'ORDERS_MIRROR',
      mirror: { name: 'ORDERS', domain: 'HUB' },
    });
    for (let i = 0; i < 3; i++) onHub.publish(`orders.${i}`, `before ${i}`);
    await eventually(async () =>
      expect((await leafLocal.streams.info('ORDERS_MIRROR')).state.messages).toBe(3),
    );
    await onHub.close();
    hub = await hub.restart();
    onHub = await open(hub.url);
    for (let i = 3; i < 6; i++) onHub.publish(`orders.${i}`, `after ${i}`);
    await onHub.flush();
    await eventually(
      async () => expect((await leafLocal.streams.info('ORDERS_MIRROR')).state.messages).toBe(6),
      30_000,
    );
    expect((await leafLocal.streams.getMessage('ORDERS_MIRROR', { seq: 6 }))?.subject).toBe(
      'orders.5',
    );
  });
});

describe('our leaf (domain EDGE) whose hub (domain HUB) is down when a mirror starts', () => {
  it('asks for the mirror consumer again as soon as the leaf connection is up', async () => {
    const leafPort = await freePort();
    const store = mkdtempSync(join(tmpdir(), 'leaf-js-hub-'));
    let hub = await startNatsServer({
      config: `jetstream { domain: HUB, store_dir: "${store}" }\nleafnodes { host: 127.0.0.1, port: ${leafPort} }`,
    });
    running.push({
      stop: async () => {
        await hub.stop();
        rmSync(store, { recursive: true, force: true });
      },
    });
    const onHub = await open(hub.url);
    const hubJs = await jetstreamManager(onHub);
    await hubJs.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    for (let i = 0; i < 3; i++) await hubJs.jetstream().publish(`orders.${i}`, `order ${i}`);
    await onHub.close();
    await hub.kill();
    // The mirror's first consumer request goes out while there is no hub to answer it: without
    // a new request once the link is up, it waits 30 s for that answer (srcConsumerWaitTime).
    const leaf = await ourLeaf(leafPort, {}, { jetstream: { domain: 'EDGE' } });
    running.push(leaf);
    const leafLocal = await jetstreamManager(await open(leaf.url));
    await leafLocal.streams.add({
      name: 'ORDERS_MIRROR',
      mirror: { name: 'ORDERS', domain: 'HUB' },
    });
    hub = await hub.restart();
    // As nats-server 2.11.5 on (checkInternalSyncConsumers), the leaf connection coming up
    // retries the account's mirror and source consumers that are not running.
    await eventually(async () =>
      expect((await leafLocal.streams.info('ORDERS_MIRROR')).state.messages).toBe(3),
    );
  });
});
