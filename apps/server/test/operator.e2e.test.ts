import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import {
  type RunningAccountServer,
  type RunningNatsServer,
  startAccountServer,
  startNatsServer,
  TestOperator,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// Operator mode from a config file, as nats-server reads it: the operator JWT in a file, the
// accounts preloaded into a memory resolver, in a full or cache resolver's directory, or served
// to a URL resolver by a small account server. nats-server 2.9.10 and the slipstream-server bin
// run the same file; the official client logs in with creds files.

const resolvers = ['memory', 'full', 'cache', 'url'] as const;

describe.each(configServers)('operator mode from a config file in $name', ({ bin }) => {
  describe.each(resolvers)('with the %s resolver', (resolver) => {
    const operator = new TestOperator();
    const shop = operator.account('SHOP');
    const clerk = shop.user('clerk', {
      pub: { allow: ['orders.>'] },
      sub: { allow: ['_INBOX.>'] },
    });
    const owner = shop.user('owner');
    const stranger = new TestOperator().account('SHOP').user('stranger');
    let server: RunningNatsServer;
    let accountServer: RunningAccountServer | undefined;
    const open: NatsConnection[] = [];

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'operator-mode-'));
      const operatorFile = join(dir, 'operator.jwt');
      writeFileSync(operatorFile, operator.jwt);
      const accounts = join(dir, 'accounts');
      if (resolver === 'url') accountServer = await startAccountServer(operator.preload());
      let config = operator.config(
        resolver === 'url'
          ? { url: accountServer!.url }
          : resolver === 'memory'
            ? {}
            : { dir: accounts, type: resolver },
      );
      if (resolver === 'full' || resolver === 'cache') operator.writeAccounts(accounts);
      // The operator by file name, as nsc setups write it.
      config = config.replace(/^operator: .*$/m, `operator: ${JSON.stringify(operatorFile)}`);
      server = await startNatsServer({ bin, config });
    });
    afterAll(async () => {
      await Promise.all(open.map((nc) => nc.close()));
      await server?.stop();
      await accountServer?.close();
    });

    async function client(creds: string) {
      const nc = await connect({
        servers: server.url,
        reconnect: false,
        authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
      });
      open.push(nc);
      return nc;
    }

    it('lets users of the account in with their creds; they see each other', async () => {
      const ownerConnection = await client(owner.creds);
      const sub = ownerConnection.subscribe('orders.>', { max: 1 });
      await ownerConnection.flush();
      const clerkConnection = await client(clerk.creds);
      clerkConnection.publish('orders.new', 'x');
      await clerkConnection.flush();
      for await (const m of sub) expect(m.subject).toBe('orders.new');
    });

    it('refuses a user of an account the operator did not sign', async () => {
      await expect(client(stranger.creds)).rejects.toThrow(/Authorization Violation/);
    });

    it("enforces the user JWT's permissions", async () => {
      const clerkConnection = await client(clerk.creds);
      const errors = (async () => {
        for await (const status of clerkConnection.status()) {
          if (status.type === 'error') return String(status.error);
        }
        return '';
      })();
      clerkConnection.publish('payments.new', 'x');
      await clerkConnection.flush();
      expect(await errors).toMatch(/Permissions Violation for Publish to "payments.new"/);
    });
  });
});
