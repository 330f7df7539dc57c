import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, officialClients } from './support/clients.js';
import { bothServers, type TestServer } from './support/servers.js';
import { eventually } from './support/wait.js';

// Connection lifecycle as the official clients see it; each expectation also holds on nats-server.
describe.each(officialClients)('$name', (client) => {
  describe.each(bothServers)('against $name', (kind) => {
    let server: TestServer | undefined;
    const open: Connection[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((nc) => (nc.isClosed() ? undefined : nc.close())));
      await server?.stop();
      server = undefined;
    });
    const connect = async (options: Parameters<typeof client.connect>[0]) => {
      const nc = await client.connect(options);
      open.push(nc);
      return nc;
    };
    const connectError = (options: Parameters<typeof client.connect>[0]) =>
      client.connect({ ...options, reconnect: false }).then(
        (nc) => nc.close().then(() => 'connected'),
        (error: unknown) => error,
      );

    it('accepts the right user and password and refuses wrong ones', async () => {
      server = await kind.start({ authorization: { user: 'app', pass: 's3cret' } });
      const ok = await connect({
        servers: server.url,
        user: 'app',
        pass: 's3cret',
        reconnect: false,
      });
      expect(ok.isClosed()).toBe(false);
      for (const wrong of [{ user: 'app', pass: 'nope' }, { user: 'other', pass: 's3cret' }, {}]) {
        expect(
          client.isAuthorizationError(await connectError({ servers: server.url, ...wrong })),
        ).toBe(true);
      }
    });

    it('accepts the right token and refuses a wrong one', async () => {
      server = await kind.start({ authorization: { token: 't0ken' } });
      const ok = await connect({ servers: server.url, token: 't0ken', reconnect: false });
      expect(ok.isClosed()).toBe(false);
      expect(
        client.isAuthorizationError(await connectError({ servers: server.url, token: 'bad' })),
      ).toBe(true);
    });

    it('resubscribes after the server restarts on the same port', async () => {
      server = await kind.start();
      const nc = await connect({
        servers: server.url,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 50,
      });
      const got: string[] = [];
      nc.subscribe('after.restart', { callback: (_e, m) => got.push(m.string()) });
      await nc.flush();
      const reconnected = waitForStatus(nc, 'reconnect');
      server = await server.restart();
      await reconnected;
      const pub = await connect({ servers: server.url, reconnect: false });
      pub.publish('after.restart', 'still here');
      await eventually('the message after the restart', () => got.length === 1);
      expect(got).toEqual(['still here']);
    });

    it('tells connected clients when it enters lame duck mode', async () => {
      server = await kind.start({ lameDuckGracePeriod: 1_000 });
      const nc = await connect({ servers: server.url, reconnect: false });
      const ldm = waitForStatus(nc, 'ldm');
      server.lameDuck();
      await ldm;
    });
  });
});

/** Resolves on the first status event of this type (bounded by the test timeout). */
async function waitForStatus(nc: Connection, type: string): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === type) return;
  }
  throw new Error(`status stream ended before a "${type}" event`);
}
