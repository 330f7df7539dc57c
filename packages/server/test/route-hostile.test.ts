import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.js';
import { client, collect, eventually, firstDelivery, pause } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { RawClient } from './raw-client.js';
import {
  CLUSTER,
  type ClusterMember,
  clusterPorts,
  natsMember,
  ourMember,
} from './route-support.js';

const running: ClusterMember[] = [];
const connections: OfficialConnection[] = [];
const raws: RawClient[] = [];
afterEach(async () => {
  for (const raw of raws.splice(0)) raw.socket.destroy();
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const member of running.splice(0).reverse()) await member.stop();
});

async function open(member: ClusterMember): Promise<OfficialConnection> {
  const nc = await client(member.url);
  connections.push(nc);
  return nc;
}

async function member<T extends ClusterMember>(started: Promise<T>): Promise<T> {
  const m = await started;
  running.push(m);
  return m;
}

/** A hand-driven route to `port`, greeted with the route INFO. */
async function rawRoute(port: number): Promise<RawClient> {
  const raw = await RawClient.connect(port);
  raws.push(raw);
  await raw.waitFor(/^INFO .*\r\n/);
  return raw;
}

/** Whether a message published on `subject` crosses from `from` to `to` within a second. */
async function crosses(from: OfficialConnection, to: OfficialConnection, subject: string) {
  const got = collect(to.subscribe(subject));
  await to.flush();
  for (let i = 0; i < 10 && got.length === 0; i++) {
    from.publish(subject, 'x');
    await from.flush();
    await pause(100);
  }
  return got.length > 0;
}

describe('route credentials', () => {
  const auth = 'authorization { user: ruser, password: rpass }';

  it('nats-server refuses our route with a wrong password, and takes the right one', async () => {
    const [natsPort, ourPort, laterPort] = await clusterPorts(3);
    const nats = await member(natsMember(natsPort!, [], { extra: auth }));
    const wrong = await member(
      ourMember(ourPort!, [], { routes: [`nats-route://ruser:wrong@127.0.0.1:${natsPort}`] }),
    );
    await eventually(() => {
      expect(nats.output()).toContain('authentication error');
      expect(wrong.output()).toContain("Route Error 'Authorization Violation'");
    });
    expect(await crosses(await open(nats), await open(wrong), 'refused')).toBe(false);
    const right = await member(
      ourMember(laterPort!, [], { routes: [`nats-route://ruser:rpass@127.0.0.1:${natsPort}`] }),
    );
    const sub = (await open(right)).subscribe('allowed');
    expect((await firstDelivery(await open(nats), 'allowed', sub, 'in')).string()).toBe('in');
  });

  it('ours refuses a nats-server route with a wrong password, and takes the right one', async () => {
    const [ourPort, wrongPort, rightPort] = await clusterPorts(3);
    const ours = await member(
      ourMember(ourPort!, [], { authorization: { user: 'ruser', password: 'rpass' } }),
    );
    const wrong = await member(natsMember(wrongPort!, [ourPort!], { credentials: 'ruser:wrong@' }));
    await eventually(() => {
      expect(ours.output()).toContain('authentication error');
      expect(wrong.output()).toContain('Authorization Violation');
    });
    expect(await crosses(await open(wrong), await open(ours), 'refused')).toBe(false);
    const right = await member(natsMember(rightPort!, [ourPort!], { credentials: 'ruser:rpass@' }));
    const sub = (await open(ours)).subscribe('allowed');
    expect((await firstDelivery(await open(right), 'allowed', sub, 'in')).string()).toBe('in');
  });
});

describe('a hand-driven route to ours', () => {
  async function ours() {
    const [port] = await clusterPorts(1);
    return member(ourMember(port!, []));
  }

  const connect = JSON.stringify({ cluster: CLUSTER, name: 'FAKE', headers: true });
  const info = JSON.stringify({
    server_id: 'FAKE',
    server_name: 'fake',
    cluster: CLUSTER,
    host: '127.0.0.1',
    port: 1,
    headers: true,
    a_field_from_the_future: { nested: [1, 2] },
  });

  it('is greeted with a route INFO, ignores an unknown INFO field, and carries interest and messages', async () => {
    const server = await ours();
    const nc = await open(server);
    const probe = collect(nc.subscribe('probe'));
    await nc.flush();
    const raw = await rawRoute(server.clusterPort);
    const greeting = JSON.parse(/^INFO (.*)\r\n/.exec(raw.text)![1]!);
    expect(greeting).toMatchObject({ cluster: CLUSTER, proto: 2, headers: true });
    expect(greeting.connect_urls).toEqual([new URL(server.url).host]);
    await raw.send(`CONNECT ${connect}\r\nINFO ${info}\r\n`);
    await raw.waitFor(/RS\+ \$G probe\r\n/);
    await raw.send('RS+ $G from.fake\r\nRMSG $G probe 5\r\nhello\r\n');
    await eventually(() => expect(probe.map((m) => m.string())).toEqual(['hello']));
    await eventually(async () => {
      nc.publish('from.fake', 'hi');
      await nc.flush();
      await raw.waitFor(/RMSG \$G from\.fake 2\r\nhi\r\n/, 100);
    });
  });

  it('closes a route that breaks the protocol, logs it, and keeps serving', async () => {
    const server = await ours();
    const raw = await rawRoute(server.clusterPort);
    await raw.send(`CONNECT ${connect}\r\nINFO ${info}\r\nRMSG $G subject not-a-size\r\n`);
    await raw.waitClosed();
    expect(server.output()).toContain('Route parser ERROR: processRoutedMsgArgs Parse Error');
    const nc = await open(server);
    nc.subscribe('still', { callback: (_, m) => void m.respond('serving') });
    expect((await nc.request('still', '')).string()).toBe('serving');
    // And another route is welcome.
    const again = await rawRoute(server.clusterPort);
    await again.send(`CONNECT ${connect}\r\nINFO ${info}\r\n`);
    await again.send('PING\r\n');
    await again.waitFor(/PONG\r\n/);
    expect(again.isClosed).toBe(false);
  });

  it('refuses an INFO before CONNECT, a client, and another cluster', async () => {
    const server = await ours();
    const early = await rawRoute(server.clusterPort);
    await early.send(`INFO ${info}\r\n`);
    expect(await early.waitClosed()).toContain("-ERR 'Authorization Violation'");
    const aClient = await rawRoute(server.clusterPort);
    await aClient.send('CONNECT {"lang":"node","version":"3.0.0"}\r\n');
    expect(await aClient.waitClosed()).toContain("-ERR 'attempted to connect to route port'");
    const other = await rawRoute(server.clusterPort);
    await other.send('CONNECT {"cluster":"other","name":"X"}\r\n');
    expect(await other.waitClosed()).toContain(
      `-ERR 'Rejecting connection, cluster name "other" does not match "${CLUSTER}"'`,
    );
  });
});

it('refuses to start a cluster member with JetStream, saying why and what to do', async () => {
  await expect(
    startServer({ port: 0, cluster: { name: CLUSTER, port: 0 }, jetstream: true }),
  ).rejects.toThrow(/this server does not cluster JetStream\. Turn JetStream off on this member/);
});
