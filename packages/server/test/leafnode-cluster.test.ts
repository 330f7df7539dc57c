import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { client, eventually, firstDelivery, ourLeaf } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

const running: { stop(): Promise<void> }[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

interface ClusterMember {
  readonly server: RunningNatsServer;
  readonly leafPort: number;
}

/**
 * A cluster of nats-server 2.9.10 processes, each with a leaf node port, routed to each other;
 * resolves once every member has a route to every other.
 */
async function natsServerCluster(
  size: number,
  leafExtra = '',
  websocket = false,
): Promise<ClusterMember[]> {
  const clusterPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const leafPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const members = await Promise.all(
    clusterPorts.map(async (clusterPort, index) => {
      const routes = clusterPorts
        .filter((port) => port !== clusterPort)
        .map((port) => `"nats://127.0.0.1:${port}"`)
        .join(', ');
      const server = await startNatsServer({
        config: [
          `server_name: member${index}`,
          `cluster { name: C, listen: "127.0.0.1:${clusterPort}", routes: [${routes}] }`,
          `leafnodes { host: 127.0.0.1, port: ${leafPorts[index]}\n ${leafExtra} }`,
        ].join('\n'),
        websocket,
      });
      running.push(server);
      return { server, leafPort: leafPorts[index]! };
    }),
  );
  await eventually(() => {
    for (const { server } of members) {
      // Both members of a pair may solicit: a duplicate route is made, then dropped.
      const routes = server.output().match(/Route connection created/g)?.length ?? 0;
      expect(routes).toBeGreaterThanOrEqual(size - 1);
    }
  }, 20_000);
  return members;
}

async function open(url: string): Promise<OfficialConnection> {
  const nc = await client(url);
  connections.push(nc);
  return nc;
}

describe('our leaf of a nats-server cluster', () => {
  it.each([
    { name: 'no login', leafExtra: '', login: '' },
    {
      // A discovered URL has no login: the configured URL's is used (nats-server's saveUserPassword).
      name: 'the configured URL user and password',
      leafExtra: 'authorization { user: edge, password: s3cret }',
      login: 'edge:s3cret@',
    },
  ])(
    "fails over to another member named in the hub's leafnode_urls when its hub goes away ($name)",
    async ({ leafExtra, login }) => {
      const [first, second] = await natsServerCluster(2, leafExtra);
      const hub = first!;
      const other = second!;
      // Only the first member is configured: the second is known from its INFO alone.
      const leaf = await ourLeaf(hub.leafPort, {
        urls: [`nats-leaf://${login}127.0.0.1:${hub.leafPort}`],
        noRandomize: true,
      });
      running.push(leaf);
      await eventually(() =>
        expect(leaf.output()).toMatch(
          new RegExp(
            `<<- \\[INFO [^\\n]*"leafnode_urls":\\[[^\\]]*127\\.0\\.0\\.1:${other.leafPort}`,
          ),
        ),
      );
      const onLeaf = await open(leaf.url);
      const onOther = await open(other.server.url);
      // Through the first member and its route, before it goes.
      await firstDelivery(onLeaf, 'before', onOther.subscribe('before'));

      await hub.server.kill();
      await eventually(() =>
        expect(leaf.output()).toContain(
          `Trying to connect as leafnode to remote server on "127.0.0.1:${other.leafPort}"`,
        ),
      );
      // Both ways through the second member now.
      const up = await firstDelivery(onLeaf, 'up', onOther.subscribe('up'), 'from the leaf');
      expect(up.string()).toBe('from the leaf');
      const down = await firstDelivery(onOther, 'down', onLeaf.subscribe('down'), 'to the leaf');
      expect(down.string()).toBe('to the leaf');
    },
  );
});

describe('our leaf of a nats-server cluster through its WebSocket ports', () => {
  it("fails over to another member named in the hub's ws_connect_urls", async () => {
    const [first, second] = await natsServerCluster(2, '', true);
    const hub = first!.server;
    const other = second!.server;
    const leaf = await ourLeaf(0, { urls: [`ws://127.0.0.1:${hub.wsPort}`], noRandomize: true });
    running.push(leaf);
    await eventually(() =>
      expect(leaf.output()).toMatch(
        new RegExp(
          `<<- \\[INFO [^\\n]*"ws_connect_urls":\\[[^\\]]*127\\.0\\.0\\.1:${other.wsPort}`,
        ),
      ),
    );
    const onLeaf = await open(leaf.url);
    const onOther = await open(other.url);
    await firstDelivery(onLeaf, 'before', onOther.subscribe('before'));
    await hub.kill();
    await eventually(() =>
      expect(leaf.output()).toContain(
        `Trying to connect as leafnode to remote server on "127.0.0.1:${other.wsPort}"`,
      ),
    );
    const down = await firstDelivery(onOther, 'down', onLeaf.subscribe('down'), 'to the leaf');
    expect(down.string()).toBe('to the leaf');
  });
});
