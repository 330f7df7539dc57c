import {
  freePort,
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, officialClients } from './support/clients.js';
import { collect, eventually } from './support/wait.js';

// The slipstream-server process, configured by a nats-server config file with a leafnodes block,
// joined to nats-server 2.9.10 both ways; the official clients talk across the leaf connection,
// and the hub is killed (SIGKILL) and started again mid-traffic.

const running: RunningNatsServer[] = [];
const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((nc) => (nc.isClosed() ? undefined : nc.close())));
  for (const server of running.splice(0).reverse()) await server.stop();
});

type Start = typeof startNatsServer;
const slipstream: Start = startSlipstreamServer;
const natsServer: Start = startNatsServer;

/** Starts `hub` with a leaf node port, then `leaf` with a remote to it. */
async function pair(hub: Start, leaf: Start) {
  const leafPort = await freePort();
  const hubServer = await hub({
    config: `server_name: hub\nleafnodes { host: 127.0.0.1, port: ${leafPort} }`,
    args: ['-DV'],
  });
  running.push(hubServer);
  const leafServer = await leaf({
    config: `server_name: edge\nleafnodes { reconnect: 1, remotes = [ { url: "nats-leaf://127.0.0.1:${leafPort}" } ] }`,
    args: ['-DV'],
  });
  running.push(leafServer);
  return { hub: hubServer, leaf: leafServer };
}

const pairings = [
  { name: 'slipstream-server leaf of a nats-server hub', hub: natsServer, leaf: slipstream },
  { name: 'nats-server leaf of a slipstream-server hub', hub: slipstream, leaf: natsServer },
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

  describe.each(pairings)('$name', (pairing) => {
    it('delivers both ways, answers requests and keeps headers', async () => {
      const { hub, leaf } = await pair(pairing.hub, pairing.leaf);
      const onHub = await connect(hub);
      const onLeaf = await connect(leaf);
      onHub.subscribe('svc', { callback: (_e, m) => void m.respond(`hub:${m.string()}`) });
      const reply = await (async () => {
        for (;;) {
          try {
            return await onLeaf.request('svc', 'q', { timeout: 500 });
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      })();
      expect(reply.string()).toBe('hub:q');
      const down = collect(onLeaf.subscribe('down'));
      const sent = client.headers();
      sent.set('X-Edge', 'yes');
      await eventually('a message from the hub with its header', () => {
        onHub.publish('down', 'x', { headers: sent });
        return down.items.length > 0;
      });
      expect(down.items[0]!.headers?.get('X-Edge')).toBe('yes');
      // -DV on ours names the other server in its leaf lines.
      const ours = pairing.leaf === slipstream ? leaf : hub;
      const theirName = pairing.leaf === slipstream ? 'hub' : 'edge';
      expect(ours.output()).toMatch(new RegExp(`lid:\\d+ - "${theirName}" - .*registered`));
      expect(ours.output()).toMatch(/\[TRC\].*(LS\+|LMSG)/);
    });

    it('restores subscriptions after the hub is killed and started again', async () => {
      const { hub, leaf } = await pair(pairing.hub, pairing.leaf);
      const onLeaf = await connect(leaf);
      const got = collect(onLeaf.subscribe('ticks'));
      let publisher = await connect(hub);
      await eventually('the first tick', () => {
        publisher.publish('ticks', 'first');
        return got.items.length > 0;
      });
      await hub.kill('SIGKILL');
      const restarted = await hub.restart();
      running.splice(running.indexOf(hub), 1, restarted);
      publisher = await connect(restarted);
      const before = got.items.length;
      await eventually('ticks after the restart', () => {
        publisher.publish('ticks', 'after');
        return got.items.length > before;
      });
    });
  });
});
