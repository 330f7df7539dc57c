import {
  freePort,
  type NatsServerOptions,
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, officialClients } from './support/clients.js';
import { collect, eventually } from './support/wait.js';

// slipstream-server processes, configured by nats-server config files with a cluster block, as
// members of a nats-server 2.9.10 cluster and of a cluster of their own; the official clients
// on different members see each other, and a member is killed (SIGKILL) and started again
// mid-traffic.

const running: RunningNatsServer[] = [];
const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((nc) => (nc.isClosed() ? undefined : nc.close())));
  for (const server of running.splice(0).reverse()) await server.stop();
});

type Start = (options: NatsServerOptions) => Promise<RunningNatsServer>;
const slipstream: Start = startSlipstreamServer;
const natsServer: Start = startNatsServer;

/**
 * Starts `kinds[i]` as member i on its route port, each dialling member 0, which dials member 1
 * (nats-server's clustered JetStream wants every member to have a route configured).
 */
async function cluster(
  kinds: readonly Start[],
  extra: (i: number) => Partial<NatsServerOptions> = () => ({}),
) {
  const ports: number[] = [];
  while (ports.length < kinds.length) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const members: RunningNatsServer[] = [];
  for (const [i, start] of kinds.entries()) {
    const routes = `routes: ["nats-route://127.0.0.1:${ports[i === 0 ? 1 : 0]}"]`;
    const more = extra(i);
    const member = await start({
      ...more,
      config: `server_name: m${i}\n${more.config ?? ''}\ncluster {\n name: C\n host: 127.0.0.1\n port: ${ports[i]}\n ${routes}\n}`,
      args: ['-D'],
    });
    running.push(member);
    members.push(member);
  }
  return members;
}

/** The clusters the issue asks for; the last member is always a slipstream-server. */
const clusters = [
  {
    name: 'slipstream-server in a 3-node nats-server cluster',
    kinds: [natsServer, natsServer, natsServer, slipstream],
  },
  { name: 'a cluster of 3 slipstream-servers', kinds: [slipstream, slipstream, slipstream] },
];

describe.each(officialClients)('$name', (client) => {
  const connect = async (server: RunningNatsServer, reconnect = false) => {
    const nc = await client.connect({
      servers: server.url,
      reconnect,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    open.push(nc);
    return nc;
  };

  /** Publishes on `subject` until `got` has something: interest crossed the routes. */
  const crossed = (from: Connection, subject: string, got: { items: unknown[] }) =>
    eventually(`a message on ${subject}`, () => {
      from.publish(subject, 'probe');
      return got.items.length > 0;
    });

  describe.each(clusters)('$name', ({ kinds }) => {
    it('lets clients on different members see each other: messages, queue groups, requests', async () => {
      const members = await cluster(kinds);
      const ours = members.at(-1)!;
      const [onOurs, onFirst] = [await connect(ours), await connect(members[0]!)];
      const up = collect(onFirst.subscribe('up'));
      await crossed(onOurs, 'up', up);
      const down = collect(onOurs.subscribe('down'));
      await crossed(onFirst, 'down', down);
      onFirst.subscribe('svc', { callback: (_e, m) => void m.respond(`first:${m.string()}`) });
      const reply = await (async () => {
        for (;;) {
          try {
            return await onOurs.request('svc', 'q', { timeout: 500 });
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      })();
      expect(reply.string()).toBe('first:q');
      const a = collect(onOurs.subscribe('work', { queue: 'q' }));
      const b = collect(onFirst.subscribe('work', { queue: 'q' }));
      const sender = await connect(members[1]!);
      await eventually('both members of the group served', () => {
        sender.publish('work', 'probe');
        return a.items.length > 0 && b.items.length > 0;
      });
      a.items.length = 0;
      b.items.length = 0;
      for (let i = 0; i < 100; i++) sender.publish('work', String(i));
      await sender.flush();
      // Probes still in flight when the counts were reset may come after.
      const served = () => [...a.items, ...b.items].filter((m) => m.string() !== 'probe');
      await eventually('100 queue messages', () => served().length >= 100);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(
        served()
          .map((m) => Number(m.string()))
          .sort((x, y) => x - y),
      ).toEqual(Array.from({ length: 100 }, (_, i) => i));
    });

    it('loses nothing to a subscriber on a live member while another is killed and restarted', async () => {
      const members = await cluster(kinds);
      // The victim is always a slipstream-server: the last member, or one in the middle.
      const victimIndex = kinds[0] === natsServer ? members.length - 1 : 1;
      const victim = members[victimIndex]!;
      const others = members.filter((_, i) => i !== victimIndex);
      const receiver = await connect(others[0]!);
      const sender = await connect(others[1]!);
      const got = collect(receiver.subscribe('steady'));
      await crossed(sender, 'steady', got);
      got.items.length = 0;
      let restarted = false;
      let sent = 0;
      const sending = (async () => {
        for (let after = 0; after < 200; sent++) {
          sender.publish('steady', String(sent));
          if (restarted) after++;
          if (sent % 20 === 0) {
            await sender.flush();
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
        await sender.flush();
      })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await victim.kill('SIGKILL');
      const back = await victim.restart();
      running.splice(running.indexOf(victim), 1, back);
      restarted = true;
      await sending;
      const received = () => got.items.map((m) => m.string()).filter((text) => text !== 'probe');
      await eventually('every message', () => received().length >= sent);
      expect(received()).toEqual(Array.from({ length: sent }, (_, i) => String(i)));
      const onBack = await connect(back);
      const again = collect(onBack.subscribe('again'));
      await crossed(sender, 'again', again);
    });

    it('fails a client over to a member it learned of from connect_urls', async () => {
      const members = await cluster(kinds);
      const ours = members.at(-1)!;
      const nc = await connect(ours, true);
      await eventually('connect_urls of every member', () => {
        const urls = (nc.info as { connect_urls?: string[] } | undefined)?.connect_urls;
        return urls?.length === members.length;
      });
      const got = collect(nc.subscribe('failover'));
      const other = await connect(members[0]!);
      await crossed(other, 'failover', got);
      await ours.kill('SIGKILL');
      got.items.length = 0;
      await crossed(other, 'failover', got);
    });
  });
});

describe('JetStream through the routes', () => {
  it("gives a member without JetStream's clients the JetStream of nats-server members", async () => {
    const members = await cluster([natsServer, natsServer, natsServer, slipstream], (i) =>
      i < 3 ? { jetstream: true } : {},
    );
    const nc = await officialClients[0]!.connect({ servers: members[3]!.url });
    open.push(nc);
    const create = JSON.stringify({ name: 'ORDERS', subjects: ['orders.>'], num_replicas: 3 });
    const created = await (async () => {
      // Until the routes carry the members' interest in $JS.API (no responders) and the meta
      // group has elected its leader (a 503 answer, or none: only the leader answers a create).
      const until = Date.now() + 25_000;
      for (;;) {
        try {
          const answer = JSON.parse(
            (await nc.request('$JS.API.STREAM.CREATE.ORDERS', create, { timeout: 2_000 })).string(),
          );
          if (answer.error?.code !== 503) return answer;
        } catch (error) {
          if (Date.now() > until) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    expect(created.config?.name).toBe('ORDERS');
    const ack = JSON.parse((await nc.request('orders.1', 'first', { timeout: 5_000 })).string());
    expect(ack).toMatchObject({ stream: 'ORDERS', seq: 1 });
    const got = JSON.parse(
      (
        await nc.request('$JS.API.STREAM.MSG.GET.ORDERS', JSON.stringify({ seq: 1 }), {
          timeout: 5_000,
        })
      ).string(),
    );
    expect(Buffer.from(got.message.data, 'base64').toString()).toBe('first');
  }, 60_000);

  it('refuses to start a slipstream-server with JetStream in a cluster, saying what to do', async () => {
    await expect(
      startSlipstreamServer({ jetstream: true, config: 'cluster { name: C, port: -1 }' }),
    ).rejects.toThrow(/does not cluster JetStream\. Turn JetStream off on this member/);
  });
});
