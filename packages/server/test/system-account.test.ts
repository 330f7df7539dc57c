import { describe, expect, it } from 'vitest';
import { login as loginTo, messages, systemAccountConfig } from './system-account-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

describe.each(bothServers)('the system account against $name', (target) => {
  const { start, connect } = closedAfterEach(target);
  const login = (server: RunningTarget, user: string, setup = '') =>
    loginTo(connect, server, user, setup);

  it('announces connects and disconnects of every account but $G in the system account', async () => {
    const server = await start(systemAccountConfig);
    const sys = await login(server, 'sys', 'SUB $SYS.ACCOUNT.> 9\r\n');
    (await login(server, 'g')).close();
    const a = await login(server, 'a', 'PUB x 2\r\nhi\r\n');
    await a.sync();
    a.close();
    // Only the connect events of the accounts but SYS are compared here: the SERVER.CONNS
    // counts have their own test (system-account-events), and nats-server announces the system
    // user's own CONNECT when it comes after its SUB.
    const events = () =>
      messages(sys, 9).filter((m) => /^\$SYS\.ACCOUNT\.[^.]+\.(DIS)?CONNECT$/.test(m.subject));
    const others = () => events().filter((m) => !m.subject.startsWith('$SYS.ACCOUNT.SYS.'));
    await sys.waitUntil(() => others().length >= 2);
    await sys.sync();
    const [connect, disconnect, ...more] = others();
    expect(more).toEqual([]);
    expect(connect!.subject).toBe('$SYS.ACCOUNT.A.CONNECT');
    expect(Object.keys(connect!.body).sort()).toEqual([
      'client',
      'id',
      'server',
      'timestamp',
      'type',
    ]);
    expect(connect!.body).toMatchObject({
      type: 'io.nats.server.advisory.v1.client_connect',
      server: { ver: target.version, jetstream: true },
      client: { acc: 'A', user: 'a', name: 'a-app', lang: 'raw', ver: '1.0', kind: 'Client' },
    });
    expect(disconnect!.subject).toBe('$SYS.ACCOUNT.A.DISCONNECT');
    expect(Object.keys(disconnect!.body).sort()).toEqual([
      'client',
      'id',
      'reason',
      'received',
      'sent',
      'server',
      'timestamp',
      'type',
    ]);
    expect(disconnect!.body).toMatchObject({
      type: 'io.nats.server.advisory.v1.client_disconnect',
      client: { acc: 'A', user: 'a' },
      sent: { msgs: 1, bytes: 2 },
      received: { msgs: 0, bytes: 0 },
      reason: 'Client Closed',
    });
    expect((disconnect!.body.client as { stop?: string }).stop).toMatch(/^\d{4}-/);
  });

  it('answers $SYS.REQ.SERVER.PING with the server and its statsz', async () => {
    const server = await start(systemAccountConfig);
    const sys = await login(server, 'sys', 'SUB in 1\r\nPUB $SYS.REQ.SERVER.PING in 0\r\n\r\n');
    await sys.waitUntil(() => messages(sys, 1).length === 1);
    const { body } = messages(sys, 1)[0]!;
    expect(Object.keys(body).sort()).toEqual(['server', 'statsz']);
    expect(body.server).toMatchObject({ ver: target.version, jetstream: true });
    expect(body.statsz).toMatchObject({
      connections: 1,
      sent: { msgs: expect.any(Number) },
      received: { msgs: expect.any(Number) },
      jetstream: { config: expect.any(Object) },
    });
  });

  it('answers $SYS.REQ.SERVER.PING.VARZ, .CONNZ and .JSZ with the endpoint as data', async () => {
    const server = await start(systemAccountConfig);
    const sys = await login(server, 'sys', 'SUB in 1\r\n');
    const from = sys.text.length;
    await sys.send('PUB $SYS.REQ.SERVER.PING.VARZ in 0\r\n\r\n');
    const options = '{"auth":true}';
    await sys.send(`PUB $SYS.REQ.SERVER.PING.CONNZ in ${options.length}\r\n${options}\r\n`);
    await sys.send('PUB $SYS.REQ.SERVER.PING.JSZ in 0\r\n\r\n');
    await sys.waitUntil(() => messages(sys, 1, from).length === 3);
    const [varz, connz, jsz] = messages(sys, 1, from).map((m) => m.body);
    const serverId = (varz!.data as { server_id: string }).server_id;
    expect((varz!.server as { id: string }).id).toBe(serverId);
    expect(varz!.data).toMatchObject({ system_account: 'SYS', version: target.version });
    expect(connz!.data).toMatchObject({
      server_id: serverId,
      connections: [{ authorized_user: 'sys', account: 'SYS' }],
    });
    expect(jsz!.data).toMatchObject({ server_id: serverId, config: expect.any(Object) });
  });

  it('leaves $SYS.REQ.SERVER.PING unanswered outside the system account', async () => {
    const server = await start(systemAccountConfig);
    const a = await login(server, 'a', 'SUB in 1\r\nPUB $SYS.REQ.SERVER.PING in 0\r\n\r\n');
    await a.waitFor('NATS/1.0 503');
  });
});
