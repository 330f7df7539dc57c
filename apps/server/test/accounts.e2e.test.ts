import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// One accounts config file, as an operator writes it for nats-server, run by nats-server 2.9.10
// and by the slipstream-server bin alike; the official client then sees the same behaviour.

const config = `
no_auth_user: guest
system_account: SYS
accounts {
  SYS: { users: [ { user: sys, password: pw } ] }
  SHOP: {
    users: [ { user: shop, password: pw } ]
    jetstream: { max_streams: 1 }
    exports: [
      { stream: "orders.>" }
      { service: "stock.*", accounts: [ANALYTICS] }
    ]
  }
  ANALYTICS: {
    users: [ { user: analyst, password: pw }, { user: guest, password: "" } ]
    imports: [
      { stream: { account: SHOP, subject: "orders.>" }, prefix: shop }
      { service: { account: SHOP, subject: "stock.*" }, to: "stock.*" }
    ]
  }
  OTHER: { users: [ { user: other, password: pw } ] }
}
`;

describe.each(configServers)('accounts from a config file in $name', ({ bin }) => {
  let server: RunningNatsServer;
  const open: NatsConnection[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ bin, config, jetstream: true });
  });
  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await server?.stop();
  });

  async function client(user?: string) {
    const nc = await connect({
      servers: server.url,
      reconnect: false,
      ...(user ? { user, pass: 'pw' } : {}),
    });
    open.push(nc);
    return nc;
  }

  /** The subjects `nc` receives on `subject` while `action` runs. */
  async function received(nc: NatsConnection, subject: string, action: () => Promise<void>) {
    const seen: string[] = [];
    const sub = nc.subscribe(subject, {
      callback: (_e, m) => {
        seen.push(m.subject);
      },
    });
    await nc.flush();
    await action();
    await nc.flush();
    // The publisher's flush orders its publish before ours; one more round trip for delivery.
    await new Promise((resolve) => setTimeout(resolve, 50));
    sub.unsubscribe();
    return seen;
  }

  it('delivers an exported stream under the import prefix and nowhere else', async () => {
    const shop = await client('shop');
    const analyst = await client('analyst');
    const other = await client('other');
    const publish = async () => {
      shop.publish('orders.new', 'x');
      await shop.flush();
    };
    expect(await received(analyst, '>', publish)).toEqual(['shop.orders.new']);
    expect(await received(other, '>', publish)).toEqual([]);
  });

  it("gives JetStream to the account that enables it, with the account's limits", async () => {
    const info = async (user: string) =>
      JSON.parse((await (await client(user)).request('$JS.API.INFO', '')).string()) as {
        limits?: { max_streams: number };
        error?: { err_code: number };
      };
    expect((await info('shop')).limits?.max_streams).toBe(1);
    expect((await info('other')).error?.err_code).toBe(10039);
  });

  it('answers $SYS.REQ.SERVER.PING in the system account only', async () => {
    const sys = await client('sys');
    const pong = await sys.request('$SYS.REQ.SERVER.PING', '', { timeout: 2_000 });
    const stats = pong.json<{ server: { ver: string }; statsz: { connections: number } }>();
    // The version the server advertises in INFO.
    expect(stats.server.ver).toBe(sys.info?.version);
    expect(stats.statsz.connections).toBeGreaterThan(0);
    await expect(
      (await client('other')).request('$SYS.REQ.SERVER.PING', '', { timeout: 500 }),
    ).rejects.toThrow();
  });

  it('answers a request through a service import; the anonymous guest is in its account', async () => {
    const shop = await client('shop');
    shop.subscribe('stock.*', {
      callback: (_e, m) => {
        m.respond(`${m.subject} from ${m.headers?.get('Nats-Request-Info')}`);
      },
    });
    await shop.flush();
    const guest = await client();
    const answer = await guest.request('stock.apples', '', { timeout: 2_000 });
    expect(answer.string()).toMatch(/^stock\.apples from \{"acc":"ANALYTICS"(,"rtt":\d+)?\}$/);
    const other = await client('other');
    await expect(other.request('stock.apples', '', { timeout: 500 })).rejects.toThrow();
  });
});
