import { type TestAccount, TestOperator } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { accountsDir, operatorClients } from './operator-clients.js';
import type { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

/**
 * An account JWT pushed to a running server in operator mode changes what its connected clients
 * may do at once, as nats-server 2.9.10 applies it (updateAccountClaims).
 */
describe.each(bothServers)('account JWT updates against $name', (target) => {
  const { start, connect } = closedAfterEach(target);
  const { login, answered, pushed } = operatorClients(connect);

  /** The answer to STREAM.CREATE of a memory stream `name`, on an inbox of its own. */
  const createStream = async (client: RawClient, name: string) => {
    const body = JSON.stringify({ name, subjects: [name], storage: 'memory' });
    await client.send(
      `SUB _INBOX.${name} ${name}\r\nPUB $JS.API.STREAM.CREATE.${name} _INBOX.${name} ${body.length}\r\n${body}\r\n`,
    );
    const answer = new RegExp(`MSG _INBOX\\.${name} ${name} \\d+\\r\\n(.*)\\r\\n`);
    return JSON.parse(answer.exec(await client.waitFor(answer))![1]!);
  };

  /** Pushes the account's current JWT and expects it taken. */
  async function update(server: RunningTarget, operator: TestOperator, account: TestAccount) {
    const subject = `$SYS.REQ.ACCOUNT.${account.publicKey}.CLAIMS.UPDATE`;
    const answer = await pushed(server, operator, subject, account.jwt);
    expect(answer.data?.message).toBe('jwt updated');
  }

  it('closes the oldest clients beyond a lowered connection limit', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const server = await start({ operator: { operator } });
    const oldest = await login(server, account.user('oldest'));
    expect(await answered(oldest)).toBe('PONG\r\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const newest = await login(server, account.user('newest'));
    expect(await answered(newest)).toBe('PONG\r\n');
    account.limit({ conn: 1 });
    await update(server, operator, account);
    await oldest.waitClosed();
    expect(oldest.afterInfo()).toBe(
      "PONG\r\n-ERR 'maximum account active connections exceeded'\r\n",
    );
    expect(await answered(newest)).toBe('PONG\r\nPONG\r\n');
  });

  it('closes a client at a lowered subscription limit and applies a lowered payload limit', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const server = await start({ operator: { operator } });
    const busy = await login(server, account.user('busy'));
    await busy.send('SUB a 1\r\nSUB b 2\r\n');
    expect(await answered(busy)).toBe('PONG\r\n');
    const quiet = await login(server, account.user('quiet'));
    await quiet.send('SUB a 1\r\n');
    expect(await answered(quiet)).toBe('PONG\r\n');
    account.limit({ subs: 2, payload: 4 });
    await update(server, operator, account);
    await busy.waitClosed();
    expect(busy.afterInfo()).toBe("PONG\r\n-ERR 'maximum subscriptions exceeded'\r\n");
    await quiet.send('PUB a 4\r\nfour\r\nPUB a 5\r\nfives\r\n');
    await quiet.waitClosed();
    expect(quiet.afterInfo()).toBe(
      "PONG\r\nMSG a 1 4\r\nfour\r\n-ERR 'Maximum Payload Violation'\r\n",
    );
  });

  it('closes a connected user its account revokes', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const alice = account.user('alice');
    const server = await start({ operator: { operator } });
    const client = await login(server, alice);
    expect(await answered(client)).toBe('PONG\r\n');
    const bob = await login(server, account.user('bob'));
    expect(await answered(bob)).toBe('PONG\r\n');
    account.revoke(alice);
    await update(server, operator, account);
    await client.waitClosed();
    expect(client.afterInfo()).toBe("PONG\r\n-ERR 'User Authentication Revoked'\r\n");
    expect(await answered(bob)).toBe('PONG\r\nPONG\r\n');
  });

  it('closes a connected bearer token user when its account disallows bearer tokens', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const server = await start({ operator: { operator } });
    const bearer = await login(server, account.user('bearer', { bearerToken: true }), {
      sign: false,
    });
    expect(await answered(bearer)).toBe('PONG\r\n');
    account.limit({ disallow_bearer: true });
    await update(server, operator, account);
    await bearer.waitClosed();
    expect(bearer.afterInfo()).toBe("PONG\r\n-ERR 'Authorization Violation'\r\n");
  });

  it('starts and stops deliveries across accounts as exports and imports change', async () => {
    const operator = new TestOperator();
    const shop = operator.account('SHOP');
    const analytics = operator.account('ANALYTICS');
    const server = await start({ operator: { operator } });
    const clerk = await login(server, shop.user('clerk'));
    const analyst = await login(server, analytics.user('analyst'));
    await analyst.send('SUB shop.> 1\r\n');
    await analyst.sync();
    shop.addClaims({ exports: [{ subject: 'orders.>', type: 'stream' }] });
    await update(server, operator, shop);
    analytics.addClaims({
      imports: [{ subject: 'orders.>', account: shop.publicKey, type: 'stream', to: 'shop' }],
    });
    await update(server, operator, analytics);
    await clerk.send('PUB orders.1 1\r\n1\r\n');
    await analyst.waitFor('MSG shop.orders.1 1 1\r\n1\r\n');
    shop.addClaims({ exports: [] });
    await update(server, operator, shop);
    await clerk.send('PUB orders.2 1\r\n2\r\n');
    await clerk.sync();
    expect(await answered(analyst)).toBe('PONG\r\nMSG shop.orders.1 1 1\r\n1\r\nPONG\r\n');
  });

  it("applies the account JWT's new JetStream limits", async () => {
    const operator = new TestOperator();
    const account = operator.account('A', { jetstream: true });
    const server = await start({ operator: { operator }, jetstream: true });
    const client = await login(server, account.user('admin'));
    expect((await createStream(client, 'ONE')).error).toBeUndefined();
    account.limit({ streams: 2 });
    await update(server, operator, account);
    expect((await createStream(client, 'TWO')).error).toBeUndefined();
    expect((await createStream(client, 'THREE')).error).toEqual({
      code: 400,
      err_code: 10027,
      description: 'maximum number of streams reached',
    });
  });

  it('serves JetStream in accounts pushed after the start as their JWTs say', async () => {
    const operator = new TestOperator();
    const dir = accountsDir(operator);
    const streaming = operator.account('STREAMING', { jetstream: true });
    const plain = operator.account('PLAIN');
    const server = await start({ operator: { operator, resolverDir: dir }, jetstream: true });
    for (const account of [streaming, plain]) {
      const answer = await pushed(server, operator, '$SYS.REQ.CLAIMS.UPDATE', account.jwt);
      expect(answer.data?.message).toBe('jwt updated');
    }
    const streamer = await login(server, streaming.user('streamer'));
    expect((await createStream(streamer, 'ORDERS')).error).toBeUndefined();
    const other = await login(server, plain.user('other'));
    expect((await createStream(other, 'ORDERS')).error).toEqual({
      code: 503,
      err_code: 10039,
      description: 'JetStream not enabled for account',
    });
  });

  it('lets users of an account pushed after the start in (full resolver)', async () => {
    const operator = new TestOperator();
    const dir = accountsDir(operator);
    const late = operator.account('LATE');
    const server = await start({ operator: { operator, resolverDir: dir } });
    const answer = await pushed(server, operator, '$SYS.REQ.CLAIMS.UPDATE', late.jwt);
    expect(answer.data?.message).toBe('jwt updated');
    const client = await login(server, late.user('newcomer'));
    await client.send('SUB x 1\r\nPUB x 2\r\nhi\r\n');
    expect(await answered(client)).toBe('MSG x 1 2\r\nhi\r\nPONG\r\n');
  });
});
