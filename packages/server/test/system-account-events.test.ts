import { describe, expect, it } from 'vitest';
import {
  expectSameShape,
  login,
  messages,
  type Received,
  sideBySide,
  systemAccountConfig,
} from './system-account-client.js';

/**
 * The system account's own events, side by side: each scenario runs on our server and on
 * nats-server 2.9.10 with the same config and subscriptions, and the two must send the same
 * subjects with the same JSON shapes (values that vary compared by type).
 */
describe('system account events, ours beside nats-server 2.9.10', () => {
  const onBoth = sideBySide();

  it('sends $SYS.SERVER.<id>.STATSZ soon after start, then at doubling intervals', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      const sys = await login(connect, server, 'sys', 'SUB $SYS.SERVER.*.STATSZ 1\r\n');
      const id = sys.info().server_id as string;
      await sys.waitUntil(() => messages(sys, 1).length >= 3, 8_000);
      const beats = messages(sys, 1).slice(0, 3);
      const times = beats.map((m) => Date.parse((m.body.server as { time: string }).time));
      return { id, beats, gaps: [times[1]! - times[0]!, times[2]! - times[1]!] };
    });
    for (const { id, beats, gaps } of [our, their]) {
      expect(beats.map((m) => m.subject)).toEqual(Array(3).fill(`$SYS.SERVER.${id}.STATSZ`));
      // 250 ms, 500 ms, 1 s, 2 s ... up to 30 s: each gap about twice the one before (with room
      // for a busy machine's late timers).
      expect(gaps[1]! / gaps[0]!).toBeGreaterThan(1.3);
      expect(gaps[1]! / gaps[0]!).toBeLessThan(2.7);
    }
    expectSameShape(withoutSyncMode(our.beats[2]!.body), withoutSyncMode(their.beats[2]!.body));
  }, 20_000);

  it('counts an account connections on $SYS.ACCOUNT.<acc>.SERVER.CONNS and the old subject when they change', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      // Both subjects: $SYS.ACCOUNT.A.SERVER.CONNS and the older $SYS.SERVER.ACCOUNT.A.CONNS.
      const sys = await login(connect, server, 'sys', 'SUB $SYS.*.*.*.CONNS 1\r\n');
      const ofA = () => messages(sys, 1).filter((m) => m.body.acc === 'A');
      const a = await login(connect, server, 'a', 'PUB x 2\r\nhi\r\n');
      await sys.waitUntil(() => ofA().length >= 2);
      a.close();
      await sys.waitUntil(() => ofA().length >= 4);
      await sys.sync();
      return ofA();
    });
    const summary = (events: Received[]) =>
      events.map((m) => [m.subject, m.body.acc, m.body.conns, m.body.total_conns]);
    const expected = [
      ['$SYS.SERVER.ACCOUNT.A.CONNS', 'A', 1, 1],
      ['$SYS.ACCOUNT.A.SERVER.CONNS', 'A', 1, 1],
      ['$SYS.SERVER.ACCOUNT.A.CONNS', 'A', 0, 0],
      ['$SYS.ACCOUNT.A.SERVER.CONNS', 'A', 0, 0],
    ];
    expect(summary(our)).toEqual(expected);
    expect(summary(their)).toEqual(expected);
    expect(their[0]!.body.type).toBe('io.nats.server.advisory.v1.account_connections');
    expect(our[0]!.body.type).toBe(their[0]!.body.type);
    for (const i of [0, 3]) expectSameShape(our[i]!.body, their[i]!.body);
  });

  it('repeats an account connection count every 30 s while it has connections', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      const sys = await login(connect, server, 'sys', 'SUB $SYS.ACCOUNT.A.SERVER.CONNS 1\r\n');
      await login(connect, server, 'a');
      await sys.waitUntil(() => messages(sys, 1).length >= 2, 35_000);
      const times = messages(sys, 1).map((m) => Date.parse(m.body.timestamp as string));
      return { gap: times[1]! - times[0]!, conns: messages(sys, 1).map((m) => m.body.conns) };
    });
    for (const { gap, conns } of [our, their]) {
      expect(conns).toEqual([1, 1]);
      expect(gap).toBeGreaterThan(29_000);
      expect(gap).toBeLessThan(31_500);
    }
  }, 45_000);

  it('counts every accepted connection in $G, and $G users once more when they log in', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      const sys = await login(connect, server, 'sys', 'SUB $SYS.ACCOUNT.$G.SERVER.CONNS 1\r\n');
      await login(connect, server, 'g');
      await sys.waitUntil(() => messages(sys, 1).length >= 2);
      // A user of A is in $G from its accept until its CONNECT: one count, none when it leaves.
      await login(connect, server, 'a');
      await sys.waitUntil(() => messages(sys, 1).length >= 3);
      await sys.sync();
      return messages(sys, 1);
    });
    for (const events of [our, their]) {
      expect(events.map((m) => [m.subject, m.body.conns])).toEqual([
        ['$SYS.ACCOUNT.$G.SERVER.CONNS', 1],
        ['$SYS.ACCOUNT.$G.SERVER.CONNS', 1],
        ['$SYS.ACCOUNT.$G.SERVER.CONNS', 2],
      ]);
    }
    expectSameShape(our[0]!.body, their[0]!.body);
  });

  it('answers $SYS.REQ.ACCOUNT.<acc>.CONNS with the count event while the account has connections', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      await login(connect, server, 'a');
      const sys = await login(connect, server, 'sys', 'SUB in 1\r\n');
      // B has no connection: left unanswered, so the only answer is A's.
      await sys.send('PUB $SYS.REQ.ACCOUNT.B.CONNS in 0\r\n\r\n');
      await sys.send('PUB $SYS.REQ.ACCOUNT.A.CONNS in 0\r\n\r\n');
      await sys.waitUntil(() => messages(sys, 1).length >= 1);
      await sys.sync();
      return messages(sys, 1);
    });
    expect(our.map((m) => [m.body.acc, m.body.conns])).toEqual([['A', 1]]);
    expect(their.map((m) => [m.body.acc, m.body.conns])).toEqual([['A', 1]]);
    expectSameShape(our[0]!.body, their[0]!.body);
  });

  it('announces failed logins on $SYS.SERVER.<id>.CLIENT.AUTH.ERR', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      const sys = await login(connect, server, 'sys', 'SUB $SYS.SERVER.*.CLIENT.AUTH.ERR 1\r\n');
      for (const first of [
        'PING',
        'CONNECT {"verbose":false,"user":"a","pass":"wrong","name":"bad-app","lang":"raw"}',
      ]) {
        const client = await connect(server);
        await client.send(`${first}\r\n`);
        await client.waitClosed();
        await sys.waitUntil(() => messages(sys, 1).length === (first === 'PING' ? 1 : 2));
      }
      return { id: sys.info().server_id, events: messages(sys, 1) };
    });
    for (const { id, events } of [our, their]) {
      expect(events.map((m) => m.subject)).toEqual(
        Array(2).fill(`$SYS.SERVER.${id}.CLIENT.AUTH.ERR`),
      );
      expect(events.map((m) => m.body)).toMatchObject(
        Array(2).fill({
          type: 'io.nats.server.advisory.v1.client_disconnect',
          client: { acc: '$G' },
          reason: 'Authentication Failure',
        }),
      );
      expect(events[1]!.body.client).toMatchObject({ name: 'bad-app', lang: 'raw' });
    }
    expectSameShape(our.events[0]!.body, their.events[0]!.body);
    // nats-server also names the user the client tried to be; ours does not keep it.
    const { user: _, ...theirClient } = their.events[1]!.body.client as Record<string, unknown>;
    expectSameShape({ ...our.events[1]!.body }, { ...their.events[1]!.body, client: theirClient });
  });

  it('sends $SYS.SERVER.<id>.SHUTDOWN with its identity when it shuts down', async () => {
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start(systemAccountConfig);
      const sys = await login(connect, server, 'sys', 'SUB $SYS.SERVER.*.SHUTDOWN 1\r\n');
      const a = await login(connect, server, 'sys', 'SUB $SYS.ACCOUNT.A.DISCONNECT 1\r\n');
      await login(connect, server, 'a');
      await server.stop();
      await sys.waitClosed();
      await a.waitClosed();
      return { id: sys.info().server_id, events: messages(sys, 1), disconnects: messages(a, 1) };
    });
    for (const { id, events, disconnects } of [our, their]) {
      expect(events.map((m) => m.subject)).toEqual([`$SYS.SERVER.${id}.SHUTDOWN`]);
      expect(events[0]!.body.id).toBe(id);
      // The server stops its events first: its clients' disconnects are not announced.
      expect(disconnects).toEqual([]);
    }
    expectSameShape(our.events[0]!.body, their.events[0]!.body);
  });
});

/**
 * A statsz without what is newer than 2.9.10: the JetStream sync mode (nats-server 2.10's sync
 * fields, as /varz and /jsz show them) and the API level.
 */
function withoutSyncMode(body: Record<string, unknown>) {
  const statsz = body.statsz as {
    jetstream: { config: Record<string, unknown>; stats: { api: Record<string, unknown> } };
  };
  const { sync_always: _, sync_interval: __, ...config } = statsz.jetstream.config;
  // The API level leads the API statistics from 2.11 on; 2.9.10 has none.
  const { level: ___, ...api } = statsz.jetstream.stats.api;
  const stats = { ...statsz.jetstream.stats, api };
  return { ...body, statsz: { ...statsz, jetstream: { ...statsz.jetstream, config, stats } } };
}
