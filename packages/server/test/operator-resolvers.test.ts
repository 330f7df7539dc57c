import {
  type RunningAccountServer,
  startAccountServer,
  TestOperator,
} from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { accountsDir, operatorClients, violation } from './operator-clients.js';
import { bothServers, closedAfterEach } from './targets.js';

describe.each(bothServers)('account resolvers against $name', (target) => {
  const { start, connect } = closedAfterEach(target);
  const { login, answered, refused, pushed } = operatorClients(connect);
  const accountServers: RunningAccountServer[] = [];
  afterEach(async () => {
    await Promise.all(accountServers.splice(0).map((http) => http.close()));
  });

  async function served(operator: TestOperator, jwts = operator.preload(), home = true) {
    const http = await startAccountServer(jwts, { home });
    accountServers.push(http);
    return http.url;
  }

  /**
   * A server trusting the operator's accounts through a memory resolver (`{}`), a URL resolver
   * serving them (`{ url: true }`), or a directory resolver of the type given.
   */
  async function startWith(
    operator: TestOperator,
    resolver: { url?: true; resolverType?: 'full' | 'cache' },
  ) {
    const dir = accountsDir(operator);
    return start({
      operator: {
        operator,
        ...(resolver.url ? { resolverUrl: await served(operator) } : {}),
        ...(resolver.resolverType ? { resolverDir: dir, resolverType: resolver.resolverType } : {}),
      },
    });
  }

  it("fetches a user's account from the URL resolver, and the accounts it imports from", async () => {
    const operator = new TestOperator();
    const shop = operator.account('SHOP', {
      claims: { exports: [{ subject: 'orders.>', type: 'stream' }] },
    });
    const analytics = operator.account('ANALYTICS', {
      claims: {
        imports: [{ subject: 'orders.>', account: shop.publicKey, type: 'stream', to: 'shop' }],
      },
    });
    const hidden = operator.account('HIDDEN');
    const jwts = operator.preload();
    delete jwts[hidden.publicKey];
    const url = await served(operator, jwts);
    const server = await start({ operator: { operator, resolverUrl: url } });
    expect(await refused(server, hidden.user('nobody'))).toBe(violation);
    const analyst = await login(server, analytics.user('analyst'));
    await analyst.send('SUB shop.> 1\r\n');
    expect(await answered(analyst)).toBe('PONG\r\n');
    const clerk = await login(server, shop.user('clerk'));
    await clerk.send('PUB orders.1 1\r\n1\r\n');
    await analyst.waitFor('MSG shop.orders.1 1 1\r\n1\r\n');
  });

  it('does not start when the URL resolver has nobody home', async () => {
    const operator = new TestOperator();
    const url = await served(operator, operator.preload(), false);
    await expect(start({ operator: { operator, resolverUrl: url } })).rejects.toThrow(
      `could not fetch <"${url}">: 404 Not Found`,
    );
  });

  it.each([
    ['memory', {}, { skipped: 'jwt update skipped', updated: 'jwt updated' }],
    [
      'cache',
      { resolverType: 'cache' },
      { skipped: 'jwt update cache skipped', updated: 'jwt updated cache' },
    ],
    ['URL', { url: true }, { skipped: 'jwt update skipped', updated: 'jwt updated' }],
  ] as const)(
    'with the %s resolver, skips an update of an account not in use and applies one in use',
    async (_, resolver, texts) => {
      const operator = new TestOperator();
      const used = operator.account('USED');
      const idle = operator.account('IDLE');
      const server = await startWith(operator, resolver);
      const alice = used.user('alice');
      const client = await login(server, alice);
      expect(await answered(client)).toBe('PONG\r\n');
      const update = (account: typeof used) =>
        pushed(
          server,
          operator,
          `$SYS.REQ.ACCOUNT.${account.publicKey}.CLAIMS.UPDATE`,
          account.jwt,
        );
      expect((await update(idle)).data).toEqual({
        account: idle.publicKey,
        code: 200,
        message: texts.skipped,
      });
      used.revoke(alice);
      expect((await update(used)).data).toEqual({
        account: used.publicKey,
        code: 200,
        message: texts.updated,
      });
      await client.waitClosed();
      expect(client.afterInfo()).toBe("PONG\r\n-ERR 'User Authentication Revoked'\r\n");
    },
  );

  it.each([
    ['memory', {}, () => 'jwt update resulted in error - account validation failed'],
    ['URL', { url: true }, () => 'jwt update resulted in error - account validation failed'],
    ['full', { resolverType: 'full' }, (errors: string) => `jwt validation failed - ${errors}`],
    [
      'cache',
      { resolverType: 'cache' },
      (errors: string) => `jwt update cache validation failed - ${errors}`,
    ],
  ] as const)(
    'with the %s resolver, refuses a pushed JWT whose activation tokens are not its own',
    async (_, resolver, description) => {
      const operator = new TestOperator();
      const shop = operator.account('SHOP', {
        claims: { exports: [{ subject: 'orders.>', type: 'stream', token_req: true }] },
      });
      const account = operator.account('A');
      const server = await startWith(operator, resolver);
      expect(await answered(await login(server, account.user('alice')))).toBe('PONG\r\n');
      // Tokens the exporter issued to itself, not to A.
      account.addClaims({
        imports: ['orders.>', 'orders.new'].map((subject) => ({
          subject,
          account: shop.publicKey,
          type: 'stream',
          token: shop.activation(shop, subject, 'stream'),
        })),
      });
      const subject = `$SYS.REQ.ACCOUNT.${account.publicKey}.CLAIMS.UPDATE`;
      const answer = await pushed(server, operator, subject, account.jwt);
      const problem = (s: string) =>
        `activation token doesn't match account it is being included in, "${s}"`;
      expect(answer.error).toEqual({
        account: account.publicKey,
        code: 500,
        description: description(
          `validation errors: [${problem('orders.>')} ${problem('orders.new')}]`,
        ),
      });
    },
  );
});
