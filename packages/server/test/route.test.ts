import { headers } from '@nats-io/transport-node';
import { freePort } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  client,
  collect,
  eventually,
  firstDelivery,
  natsServerLeaf,
  pause,
} from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { RawClient } from './raw-client.js';
import { type ClusterMember, clusterPorts, natsMember, ourMember } from './route-support.js';

const running: ClusterMember[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const member of running.splice(0).reverse()) await member.stop();
});

async function open(member: ClusterMember, reconnect = false): Promise<OfficialConnection> {
  const nc = await client(member.url, reconnect);
  connections.push(nc);
  return nc;
}

/** The clusters the issue asks for; ours dials one member and learns the others from it. */
const clusters = [
  {
    name: 'ours as a member of a 3-node nats-server cluster',
    start: async () => {
      const ports = await clusterPorts(4);
      const natsPorts = ports.slice(0, 3);
      const members: ClusterMember[] = [];
      for (const port of natsPorts) members.push(await natsMember(port, natsPorts));
      members.push(await ourMember(ports[3]!, [natsPorts[0]!]));
      return members;
    },
  },
  {
    name: 'a cluster of 3 of ours',
    start: async () => {
      const ports = await clusterPorts(3);
      return [
        await ourMember(ports[0]!, []),
        await ourMember(ports[1]!, [ports[0]!]),
        await ourMember(ports[2]!, [ports[0]!]),
      ];
    },
  },
];

describe.each(clusters)('$name', (cluster) => {
  async function members(): Promise<ClusterMember[]> {
    const started = await cluster.start();
    running.push(...started);
    return started;
  }

  it('carries messages between every pair of members (a full mesh from one route each)', async () => {
    const all = await members();
    const ncs = await Promise.all(all.map((m) => open(m)));
    for (let to = 0; to < ncs.length; to++) {
      for (let from = 0; from < ncs.length; from++) {
        if (from === to) continue;
        const subject = `mesh.${from}.${to}`;
        const sub = ncs[to]!.subscribe(subject);
        const msg = await firstDelivery(ncs[from]!, subject, sub, `from ${from}`);
        expect(msg.string()).toBe(`from ${from}`);
        sub.unsubscribe();
      }
    }
  });

  /** Waits until a publish from `from` on `subject` reaches one of `subs` (interest crossed). */
  async function crossed(from: OfficialConnection, subject: string, got: () => number) {
    await eventually(async () => {
      from.publish(subject, 'probe');
      await from.flush();
      await pause(20);
      if (got() === 0) throw new Error(`no probe arrived on ${subject}`);
    });
  }

  it('delivers a queue group message once cluster-wide, drawn among the members of every server', async () => {
    const all = await members();
    const ours = all.length - 1;
    const [publisher, a, b] = await Promise.all([open(all[1]!), open(all[0]!), open(all[ours]!)]);
    const onA = collect(a.subscribe('work', { queue: 'workers' }));
    const onB = collect(b.subscribe('work', { queue: 'workers' }));
    await Promise.all([a.flush(), b.flush()]);
    await crossed(publisher, 'work', () => onA.length + onB.length);
    await eventually(async () => {
      onA.length = 0;
      onB.length = 0;
      await crossed(publisher, 'work', () => (onA.length > 0 && onB.length > 0 ? 1 : 0));
    });
    onA.length = 0;
    onB.length = 0;
    for (let i = 0; i < 200; i++) publisher.publish('work', `${i}`);
    await publisher.flush();
    await eventually(() => expect(onA.length + onB.length).toBe(200));
    await pause(200);
    const seen = [...onA, ...onB].map((m) => m.string()).sort((x, y) => Number(x) - Number(y));
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => `${i}`));
    expect(onA.length).toBeGreaterThan(0);
    expect(onB.length).toBeGreaterThan(0);

    // As nats-server 2.9.10 (client.go processMsgResults), a client's publish draws among the
    // group's members across the cluster, local or not: from either side, both get some.
    for (const [local, onLocal, onRemote] of [
      [a, onA, onB],
      [b, onB, onA],
    ] as const) {
      onLocal.length = 0;
      onRemote.length = 0;
      for (let i = 0; i < 100; i++) local.publish('work', `${i}`);
      await local.flush();
      await eventually(() => expect(onLocal.length + onRemote.length).toBe(100));
      expect(onLocal.length).toBeGreaterThan(0);
      expect(onRemote.length).toBeGreaterThan(0);
    }
  });

  it('answers requests across members both ways, and says no responders cluster-wide', async () => {
    const all = await members();
    const [first, ours] = [await open(all[0]!), await open(all[all.length - 1]!)];
    first.subscribe('svc.first', { callback: (_, m) => void m.respond(`first got ${m.string()}`) });
    ours.subscribe('svc.ours', { callback: (_, m) => void m.respond(`ours got ${m.string()}`) });
    const fromOurs = await eventually(() => ours.request('svc.first', 'a', { timeout: 500 }));
    expect(fromOurs.string()).toBe('first got a');
    const fromFirst = await eventually(() => first.request('svc.ours', 'b', { timeout: 500 }));
    expect(fromFirst.string()).toBe('ours got b');
    for (const nc of [first, ours]) {
      await expect(nc.request('svc.nobody', 'x', { timeout: 2_000 })).rejects.toThrow(
        /no responders/i,
      );
    }
  });

  it('carries headers both ways', async () => {
    const all = await members();
    const [first, ours] = [await open(all[0]!), await open(all[all.length - 1]!)];
    for (const [from, to] of [
      [first, ours],
      [ours, first],
    ] as const) {
      const sub = to.subscribe('with.headers');
      const sent = headers();
      sent.set('X-Trace', 'abc');
      sent.append('X-Trace', 'def');
      const got = sub[Symbol.asyncIterator]().next();
      await eventually(async () => {
        from.publish('with.headers', 'body', { headers: sent });
        await from.flush();
        await Promise.race([got, pause(100).then(() => Promise.reject(new Error('not yet')))]);
      });
      const msg = (await got).value!;
      expect(msg.headers?.values('X-Trace')).toEqual(['abc', 'def']);
      expect(msg.string()).toBe('body');
      sub.unsubscribe();
    }
  });

  it('takes interest back across members when the last subscriber leaves', async () => {
    const all = await members();
    const [first, ours] = [await open(all[0]!), await open(all[all.length - 1]!)];
    for (const [server, requester] of [
      [first, ours],
      [ours, first],
    ] as const) {
      const sub = server.subscribe('leaving', { callback: (_, m) => void m.respond('here') });
      await eventually(() => requester.request('leaving', '', { timeout: 500 }));
      sub.unsubscribe();
      await server.flush();
      await eventually(() =>
        expect(requester.request('leaving', '', { timeout: 500 })).rejects.toThrow(
          /no responders/i,
        ),
      );
    }
  });

  it('loses nothing between members that stay up while another is killed and restarted', async () => {
    const all = await members();
    const victim = all[1]!;
    const [receiver, sender] = [await open(all[all.length - 1]!), await open(all[0]!)];
    const got = collect(receiver.subscribe('steady'));
    await crossed(sender, 'steady', () => got.length);
    got.length = 0;
    // Publishing goes on before, during and after the victim's kill and restart.
    let restarted = false;
    let sent = 0;
    const sending = (async () => {
      for (let after = 0; after < 200; sent++) {
        sender.publish('steady', `${sent}`);
        if (restarted) after++;
        if (sent % 20 === 0) {
          await sender.flush();
          await pause(5);
        }
      }
      await sender.flush();
    })();
    await pause(50);
    await victim.restart();
    restarted = true;
    await sending;
    await eventually(() => expect(got.length).toBe(sent));
    expect(got.map((m) => m.string())).toEqual(Array.from({ length: sent }, (_, i) => `${i}`));
    // The restarted member is back in the mesh: reachable from both.
    const back = await open(victim);
    for (const from of [sender, receiver]) {
      const sub = back.subscribe('back');
      expect((await firstDelivery(from, 'back', sub, 'hi')).string()).toBe('hi');
      sub.unsubscribe();
    }
  });

  it('tells clients the members, and a client fails over to one it learned of', async () => {
    const all = await members();
    const ours = all[all.length - 1]!;
    const nc = await open(ours, true);
    await eventually(() => {
      const urls = (nc.info as { connect_urls?: string[] } | undefined)?.connect_urls ?? [];
      expect(urls).toHaveLength(all.length);
      expect((nc.info as { cluster?: string }).cluster).toBe('C');
    });
    const other = await open(all[0]!);
    const first = nc.info!.server_id;
    const got = collect(nc.subscribe('failover'));
    await crossed(other, 'failover', () => got.length);
    await ours.kill();
    await eventually(() => expect(nc.info!.server_id).not.toBe(first), 15_000);
    got.length = 0;
    await crossed(other, 'failover', () => got.length);
  });
});

it('gives a client greeted before a member joined the new connect_urls after its first PONG', async () => {
  const [firstPort, laterPort] = await clusterPorts(2);
  const first = await ourMember(firstPort!, []);
  running.push(first);
  const raw = await RawClient.connectAndGreet(Number(new URL(first.url).port));
  expect(raw.info().connect_urls).toBeUndefined();
  const later = await ourMember(laterPort!, [firstPort!]);
  running.push(later);
  const watcher = await open(first);
  await eventually(() =>
    expect((watcher.info as { connect_urls?: string[] }).connect_urls).toHaveLength(2),
  );
  await raw.send('CONNECT {"protocol":1,"verbose":false}\r\nPING\r\n');
  const after = await raw.waitFor(/PONG\r\nINFO .*\r\n/);
  const info = JSON.parse(/PONG\r\nINFO (.*) ?\r\n/.exec(after)![1]!);
  expect(info.connect_urls).toEqual([new URL(first.url).host, new URL(later.url).host]);
  raw.socket.destroy();
});

// nats-server keeps its own URL in connect_urls once the list has been updated
// (server.go:2727-2767 at v2.9.10, updateServerINFOAndSendINFOToClients): a member left alone
// says so, and a client drops the members it learned of. nats.c's
// ServerPoolUpdatedOnClusterUpdate counts on it.
it.each(['nats-server', 'slipstream'] as const)(
  'a %s member left alone offers its own URL alone, not no list',
  async (kind) => {
    const [firstPort, laterPort] = await clusterPorts(2);
    const first =
      kind === 'nats-server' ? await natsMember(firstPort!, []) : await ourMember(firstPort!, []);
    running.push(first);
    const later = await ourMember(laterPort!, [firstPort!]);
    running.push(later);
    const watcher = await open(first);
    await eventually(() =>
      expect((watcher.info as { connect_urls?: string[] }).connect_urls).toHaveLength(2),
    );
    await later.kill();
    await eventually(() =>
      expect((watcher.info as { connect_urls?: string[] }).connect_urls).toHaveLength(1),
    );
    const raw = await RawClient.connectAndGreet(Number(new URL(first.url).port));
    expect(raw.info().connect_urls).toEqual([new URL(first.url).host]);
    raw.socket.destroy();
  },
);

it('gives our clients the JetStream of nats-server members, placed in our cluster (mixed mode)', async () => {
  const ports = await clusterPorts(4);
  const natsPorts = ports.slice(0, 3);
  // nats-server's clustered JetStream wants a route configured on every member.
  for (const [i, port] of natsPorts.entries()) {
    const config = `server_name: js${i}`;
    running.push(await natsMember(port, [natsPorts[(i + 1) % 3]!], { jetstream: true, config }));
  }
  const ours = await ourMember(ports[3]!, [natsPorts[0]!]);
  running.push(ours);
  const nc = await open(ours);
  const create = JSON.stringify({ name: 'ORDERS', subjects: ['orders.>'], num_replicas: 3 });
  // Until the members' interest crossed (no responders) and their meta group elected a leader (503).
  const created = await eventually(async () => {
    const answer = JSON.parse(
      (await nc.request('$JS.API.STREAM.CREATE.ORDERS', create, { timeout: 2_000 })).string(),
    );
    expect(answer.error?.code).not.toBe(503);
    return answer;
  }, 30_000);
  expect(created.error).toBeUndefined();
  expect(created.config.num_replicas).toBe(3);
  const ack = JSON.parse((await nc.request('orders.1', 'first', { timeout: 5_000 })).string());
  expect(ack).toMatchObject({ stream: 'ORDERS', seq: 1 });
}, 60_000);

it.todo('message tracing: route egress events and Nats-Trace-Hop across routes');

it('carries a message larger than our max_payload from a member that allows it', async () => {
  const [natsPort, ourPort] = await clusterPorts(2);
  const nats = await natsMember(natsPort!, [], { config: 'max_payload: 4MB' });
  running.push(nats);
  const ours = await ourMember(ourPort!, [natsPort!]);
  running.push(ours);
  const got = collect((await open(ours)).subscribe('big'));
  const big = new Uint8Array(2 * 1024 * 1024).fill(7);
  const publisher = await open(nats);
  await eventually(async () => {
    publisher.publish('big', 'probe');
    await publisher.flush();
    await pause(20);
    expect(got.length).toBeGreaterThan(0);
  });
  publisher.publish('big', big);
  await eventually(() => expect(got.some((m) => m.data.length === big.length)).toBe(true));
});

it('dials its explicit route again when that member restarts', async () => {
  const [natsPort, ourPort] = await clusterPorts(2);
  const nats = await natsMember(natsPort!, []);
  running.push(nats);
  const ours = await ourMember(ourPort!, [natsPort!]);
  running.push(ours);
  const onOurs = await open(ours);
  const before = onOurs.subscribe('before');
  await firstDelivery(await open(nats), 'before', before);
  await nats.restart();
  const after = onOurs.subscribe('after');
  expect((await firstDelivery(await open(nats), 'after', after, 'back')).string()).toBe('back');
});

it('carries messages between a leaf of ours and another member of our cluster, both ways', async () => {
  const [natsPort, ourPort] = await clusterPorts(2);
  const nats = await natsMember(natsPort!, []);
  running.push(nats);
  const leafPort = await freePort();
  const ours = await ourMember(
    ourPort!,
    [natsPort!],
    {},
    {
      leafNodes: { host: '127.0.0.1', port: leafPort },
    },
  );
  running.push(ours);
  const leaf = await natsServerLeaf(leafPort);
  running.push({ ...leaf, clusterPort: 0, kill: () => leaf.stop(), lameDuck: () => undefined });
  const [onLeaf, onMember] = [await client(leaf.url), await open(nats)];
  connections.push(onLeaf);
  const down = onLeaf.subscribe('to.leaf');
  expect((await firstDelivery(onMember, 'to.leaf', down, 'down')).string()).toBe('down');
  const up = onMember.subscribe('to.member');
  expect((await firstDelivery(onLeaf, 'to.member', up, 'up')).string()).toBe('up');
});

describe('a cluster name generated for want of one (dynamic)', () => {
  it("gives way to a nats-server member's configured name, and a nameless nats-server takes ours", async () => {
    const [natsPort, ourPort, namelessPort] = await clusterPorts(3);
    const nats = await natsMember(natsPort!, []);
    running.push(nats);
    const ours = await ourMember(ourPort!, [natsPort!], { name: undefined });
    running.push(ours);
    const onOurs = await open(ours);
    const sub = onOurs.subscribe('named');
    await firstDelivery(await open(nats), 'named', sub);
    await eventually(() => expect((onOurs.info as { cluster?: string }).cluster).toBe('C'));
    const nameless = await natsMember(namelessPort!, [ourPort!], { name: '' });
    running.push(nameless);
    const fromNameless = onOurs.subscribe('nameless');
    await firstDelivery(await open(nameless), 'nameless', fromNameless);
  });

  it('lets two of ours without names agree on one', async () => {
    const [first, second] = await clusterPorts(2);
    const a = await ourMember(first!, [], { name: undefined });
    running.push(a);
    const b = await ourMember(second!, [first!], { name: undefined });
    running.push(b);
    const sub = (await open(a)).subscribe('agreed');
    await firstDelivery(await open(b), 'agreed', sub);
  });
});

it('stops offering the client URLs of a member in lame duck mode, either way', async () => {
  const [natsPort, ourPort] = await clusterPorts(2);
  for (const ducking of ['nats-server', 'slipstream'] as const) {
    const nats = await natsMember(natsPort!, []);
    const ours = await ourMember(ourPort!, [natsPort!]);
    running.push(nats, ours);
    const [duck, other] = ducking === 'nats-server' ? [nats, ours] : [ours, nats];
    const watcher = await open(other);
    const urls = () => (watcher.info as { connect_urls?: string[] }).connect_urls ?? [];
    const duckUrl = new URL(duck.url).host;
    await eventually(() => expect(urls()).toContain(duckUrl));
    // A client of its own keeps the ducking server up (nats-server shuts down at once without).
    await open(duck);
    duck.lameDuck();
    // Well within the 10 s grace period, after which a ducking server closes its clients.
    await eventually(() => expect(urls(), ducking).not.toContain(duckUrl), 3_000);
    await Promise.all(connections.splice(0).map((nc) => nc.close()));
    for (const member of running.splice(0).reverse()) await member.stop();
  }
});
