import { connect } from '@nats-io/transport-node';
import { freePort, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, natsServerLeaf, ourHub, ourLeaf } from './leafnode-support.js';

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function started<T extends { stop(): Promise<void> }>(server: Promise<T>): Promise<T> {
  const s = await server;
  running.push(s);
  return s;
}

// biome-ignore lint/suspicious/noExplicitAny: the JSON of both servers' endpoints, read field by field
type Json = Record<string, any>;

async function getJson(url: string): Promise<Json> {
  const response = await fetch(url);
  return (await response.json()) as Json;
}

/** The shape of a JSON value: its keys and the types of their values, recursively. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 ? [shape(value[0])] : [];
  if (value === null || typeof value !== 'object') return typeof value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, v]) => [key, shape(v)]),
  );
}

describe('/leafz and /varz of a hub with one leaf', () => {
  it('have nats-server 2.9.10 shape', async () => {
    const natsLeafPort = await freePort();
    const nats = await started(
      startNatsServer({
        monitoring: true,
        config: `leafnodes { host: 127.0.0.1, port: ${natsLeafPort} }`,
      }),
    );
    const ours = await started(ourHub(undefined, { httpPort: 0, httpHost: '127.0.0.1' }));
    // Our leaf on their hub, theirs on ours: what each hub lists is what the other kind sent.
    await started(ourLeaf(natsLeafPort));
    await started(natsServerLeaf(ours.leafPort!));
    const natsUrl = `http://127.0.0.1:${nats.httpPort}`;
    const oursUrl = ours.server().httpUrl!;
    // A leaf announces its loop detection subject and the system service imports of its account
    // (ours imports $SYS.REQ.USER.INFO as nats-server 2.11 does, whose leaves announce it too).
    const announced = (leafz: Json) =>
      ((leafz.leafs?.[0]?.subscriptions_list ?? []) as string[])
        .filter((subject) => subject !== '$SYS.REQ.USER.INFO')
        .map((subject) => subject.replace(/^\$LDS\..*/, '$LDS.*'))
        .sort();
    // Until each side has all of the other's interest (LS+ lines arrive one by one).
    const [theirs, mine] = await eventually(async () => {
      const both = await Promise.all([
        getJson(`${natsUrl}/leafz?subs=1`),
        getJson(`${oursUrl}/leafz?subs=1`),
      ]);
      for (const leafz of both) expect(leafz.leafnodes).toBe(1);
      expect(announced(both[1]!)).toContain('$LDS.*');
      expect(announced(both[1]!)).toEqual(announced(both[0]!));
      return both;
    });
    expect(shape(mine)).toEqual(shape(theirs));
    expect(mine.leafs[0]).toMatchObject({ account: '$G', ip: '127.0.0.1' });
    const [theirVarz, myVarz] = await Promise.all([
      getJson(`${natsUrl}/varz`),
      getJson(`${oursUrl}/varz`),
    ]);
    expect(myVarz.leafnodes).toBe(1);
    expect(theirVarz.leafnodes).toBe(1);
    expect(myVarz.leaf).toMatchObject({ host: '127.0.0.1', port: ours.leafPort });
    expect(Object.keys(myVarz.leaf).sort()).toEqual(Object.keys(theirVarz.leaf).sort());
  });

  it('lists nothing (leafs null) once the leaf is gone, and filters by account', async () => {
    const hub = await started(ourHub(undefined, { httpPort: 0, httpHost: '127.0.0.1' }));
    const leaf = await started(natsServerLeaf(hub.leafPort!));
    const url = hub.server().httpUrl!;
    await eventually(async () => expect((await getJson(`${url}/leafz`)).leafnodes).toBe(1));
    expect((await getJson(`${url}/leafz?acc=OTHER`)).leafs).toBeNull();
    const accountz = await getJson(`${url}/accountz?acc=$G`);
    expect(accountz.account_detail.leafnode_connections).toBe(1);
    await leaf.stop();
    running.splice(running.indexOf(leaf), 1);
    await eventually(async () => expect((await getJson(`${url}/leafz`)).leafs).toBeNull());
  });
});

describe('/accstatz of a hub with one leaf and one client in $G', () => {
  it('counts the leaf connection as nats-server 2.9.10 (leafnodes, total_conns)', async () => {
    const natsLeafPort = await freePort();
    const nats = await started(
      startNatsServer({
        monitoring: true,
        config: `leafnodes { host: 127.0.0.1, port: ${natsLeafPort} }`,
      }),
    );
    const ours = await started(ourHub(undefined, { httpPort: 0, httpHost: '127.0.0.1' }));
    await started(natsServerLeaf(natsLeafPort));
    await started(natsServerLeaf(ours.leafPort!));
    const clients = await Promise.all([
      connect({ servers: nats.url }),
      connect({ servers: ours.url }),
    ]);
    try {
      const counts = async (url: string) => {
        const statz = await getJson(`${url}/accstatz`);
        const global = (statz.account_statz as Json[]).find((stat) => stat.acc === '$G');
        return {
          conns: global?.conns,
          leafnodes: global?.leafnodes,
          total_conns: global?.total_conns,
        };
      };
      const expected = { conns: 1, leafnodes: 1, total_conns: 2 };
      await eventually(async () => {
        expect(await counts(`http://127.0.0.1:${nats.httpPort}`)).toEqual(expected);
        expect(await counts(ours.server().httpUrl!)).toEqual(expected);
      });
    } finally {
      await Promise.all(clients.map((nc) => nc.close()));
    }
  });
});

describe('/varz leaf remotes', () => {
  it('lists each remote as nats-server 2.9.10 does (account, host:port, deny lists)', async () => {
    const hubPort = await freePort();
    const theirs = await started(
      startNatsServer({
        monitoring: true,
        config: `leafnodes { remotes = [ { url: "nats-leaf://u:p@127.0.0.1:${hubPort}", deny_imports: ["secret.>"], deny_exports: ["a", "b.*"] } ] }`,
      }),
    );
    const ours = await started(
      ourLeaf(
        hubPort,
        {
          urls: [`nats-leaf://u:p@127.0.0.1:${hubPort}`],
          denyImports: ['secret.>'],
          denyExports: ['a', 'b.*'],
        },
        { httpPort: 0, httpHost: '127.0.0.1' },
      ),
    );
    const theirVarz = await getJson(`http://127.0.0.1:${theirs.httpPort}/varz`);
    const myVarz = await getJson(`${ours.server().httpUrl}/varz`);
    expect(myVarz.leaf.remotes).toEqual(theirVarz.leaf.remotes);
    expect(myVarz.leaf.remotes[0].urls).toEqual([`127.0.0.1:${hubPort}`]);
  });
});
