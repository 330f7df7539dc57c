import { connect } from '@nats-io/transport-node';
import { freePort, startNatsServer } from '@slipstream/test-servers';
import { afterEach, expect, it } from 'vitest';
import { client, eventually } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { CLUSTER, type ClusterMember, clusterPorts, ourMember } from './route-support.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function json(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  return (await response.json()) as Record<string, unknown>;
}

it('serves /routez and the varz cluster block in nats-server 2.9.10 shape', async () => {
  const [natsPort, ourPort] = await clusterPorts(2);
  const nats = await startNatsServer({
    monitoring: true,
    config: `cluster { name: ${CLUSTER}, host: 127.0.0.1, port: ${natsPort} }`,
  });
  cleanup.push(() => nats.stop());
  const httpPort = await freePort();
  const ours: ClusterMember = await ourMember(ourPort!, [natsPort!], {}, { httpPort });
  cleanup.push(() => ours.stop());
  const connections: OfficialConnection[] = [await client(nats.url), await client(ours.url)];
  cleanup.push(() => Promise.all(connections.map((nc) => nc.close())));
  for (const nc of connections) {
    nc.subscribe('watched');
    await nc.flush();
  }
  const natsRoutez = `http://127.0.0.1:${nats.httpPort}/routez?subs=1`;
  const ourRoutez = `http://127.0.0.1:${httpPort}/routez?subs=1`;
  const [theirs, mine] = await eventually(async () => {
    const both = [await json(natsRoutez), await json(ourRoutez)] as const;
    for (const body of both) {
      const routes = body.routes as { subscriptions_list?: string[] }[];
      expect(routes).toHaveLength(1);
      expect(routes[0]!.subscriptions_list).toContain('watched');
    }
    return both;
  });
  expect(Object.keys(mine).sort()).toEqual(Object.keys(theirs).sort());
  expect(mine.num_routes).toBe(1);
  const [theirRoute, myRoute] = [theirs, mine].map(
    (body) => (body.routes as Record<string, unknown>[])[0]!,
  );
  expect(Object.keys(myRoute!).sort()).toEqual(Object.keys(theirRoute!).sort());
  expect(myRoute!.remote_id).toBe(theirs.server_id);
  expect(theirRoute!.remote_id).toBe(mine.server_id);
  expect([myRoute!.did_solicit, myRoute!.is_configured]).toEqual([true, true]);
  expect(myRoute!.ip).toBe('127.0.0.1');

  const [theirVarz, myVarz] = [
    await json(`http://127.0.0.1:${nats.httpPort}/varz`),
    await json(`http://127.0.0.1:${httpPort}/varz`),
  ];
  const [theirCluster, myCluster] = [theirVarz.cluster, myVarz.cluster] as Record<
    string,
    unknown
  >[];
  // Ours names a configured route; nats-server here has none, so it lists no urls.
  expect(Object.keys(myCluster!).sort()).toEqual([...Object.keys(theirCluster!), 'urls'].sort());
  expect(myCluster).toMatchObject({
    name: CLUSTER,
    addr: '127.0.0.1',
    cluster_port: ourPort,
    urls: [`127.0.0.1:${natsPort}`],
  });
  expect([myVarz.routes, theirVarz.routes]).toEqual([1, 1]);
});

it("tells the routes in STATSZ and names the cluster in the system account's server block", async () => {
  const [natsPort, ourPort] = await clusterPorts(2);
  const nats = await startNatsServer({
    config: `server_name: theirs\ncluster { name: ${CLUSTER}, host: 127.0.0.1, port: ${natsPort} }`,
  });
  cleanup.push(() => nats.stop());
  const ours = await ourMember(
    ourPort!,
    [natsPort!],
    {},
    {
      accounts: { SYS: { users: [{ user: 'sys', pass: 'sys' }] } },
      systemAccount: 'SYS',
    },
  );
  cleanup.push(() => ours.stop());
  const nc = await connect({ servers: ours.url, user: 'sys', pass: 'sys' });
  cleanup.push(() => nc.close());
  const statsz = await eventually(async () => {
    const reply = await nc.request('$SYS.REQ.SERVER.PING.STATSZ', '', { timeout: 1_000 });
    const body = reply.json<{
      server: { id: string; cluster?: string };
      statsz: { routes?: { name: string }[]; active_servers: number };
    }>();
    expect(body.server.id).toBe(ours.server().info.server_id);
    expect(body.statsz.routes).toHaveLength(1);
    return body;
  });
  expect(statsz.server.cluster).toBe(CLUSTER);
  expect(statsz.statsz.routes![0]!.name).toBe('theirs');
  expect(statsz.statsz.active_servers).toBe(2);
});
