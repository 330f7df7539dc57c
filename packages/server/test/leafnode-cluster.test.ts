import { headers } from '@nats-io/transport-node';
import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { client, collect, eventually, firstDelivery, ourLeaf, pause } from './leafnode-support.js';
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

describe('our leaf of a 3-node nats-server cluster', () => {
  it('serves pub/sub, queue groups, requests with headers and unsubscribes across it, and loses nothing while another member restarts', async () => {
    const [first, second, third] = await natsServerCluster(3);
    const leaf = await ourLeaf(first!.leafPort);
    running.push(leaf);
    const onLeaf = await open(leaf.url);
    const onSecond = await open(second!.server.url);
    const onThird = await open(third!.server.url);

    // Requests from the leaf to a responder two hops away, headers both ways.
    onThird.subscribe('svc', {
      callback: (_, msg) => {
        const answer = headers();
        answer.set('Echo', msg.headers?.get('Ask') ?? '');
        msg.respond(`re: ${msg.string()}`, { headers: answer });
      },
    });
    const ask = headers();
    ask.set('Ask', 'why');
    const reply = await eventually(() =>
      onLeaf.request('svc', 'question', { timeout: 1_000, headers: ask }),
    );
    expect([reply.string(), reply.headers?.get('Echo')]).toEqual(['re: question', 'why']);

    // A queue group with members on the leaf and on the second member: each message once.
    const onLeafQueue = collect(onLeaf.subscribe('work', { queue: 'q' }));
    const onSecondQueue = collect(onSecond.subscribe('work', { queue: 'q' }));
    const probe = onLeaf.subscribe('work.ready');
    await firstDelivery(onThird, 'work.ready', probe);
    await pause(200);
    for (let i = 0; i < 20; i++) onThird.publish('work', String(i));
    await eventually(() => expect(onLeafQueue.length + onSecondQueue.length).toBe(20));
    const served = [...onLeafQueue, ...onSecondQueue].map((msg) => Number(msg.string()));
    expect(served.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));

    // Unsubscribing on the leaf takes the interest back across the cluster.
    const gone = onLeaf.subscribe('gone');
    await firstDelivery(onThird, 'gone', gone);
    gone.unsubscribe();
    await eventually(async () => {
      const answered = await onThird.request('gone', '', { timeout: 500 }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      expect(answered).toMatch(/no responders/);
    });

    // The second member goes away and comes back mid-traffic: the leaf's messages to a
    // subscriber on the third, through the first, all arrive.
    const received = collect(onThird.subscribe('seq'));
    await firstDelivery(onLeaf, 'seq.ready', onThird.subscribe('seq.ready'));
    let sent = 0;
    let publishing = true;
    const publisher = (async () => {
      while (publishing) {
        onLeaf.publish('seq', String(sent++));
        await pause(5);
      }
    })();
    await pause(100);
    await second!.server.kill();
    const restarted = await second!.server.restart();
    running.push(restarted);
    await eventually(() => expect(restarted.output()).toContain('Route connection created'));
    await pause(100);
    publishing = false;
    await publisher;
    await onLeaf.flush();
    await eventually(() => expect(received.length).toBe(sent));
    expect(received.map((msg) => Number(msg.string()))).toEqual(
      Array.from({ length: sent }, (_, i) => i),
    );
    // And the restarted member is part of it again.
    const onRestarted = await open(restarted.url);
    const back = await firstDelivery(onLeaf, 'back', onRestarted.subscribe('back'), 'hello');
    expect(back.string()).toBe('hello');
  });
});
