import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestAccount, TestOperator } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { accountsDir, connectLine, operatorClients, violation } from './operator-clients.js';
import { bothServers, closedAfterEach } from './targets.js';

describe.each(bothServers)('operator mode against $name', (target) => {
  const { start, connect } = closedAfterEach(target);

  const { login, answered, refused, pushed } = operatorClients(connect);

  it('lets a user of a trusted account in; pub/sub works within its account only', async () => {
    const operator = new TestOperator();
    const a = operator.account('A');
    const b = operator.account('B');
    const server = await start({ operator: { operator } });
    const alice = await login(server, a.user('alice'));
    await alice.send('SUB x 1\r\n');
    await alice.sync();
    const bob = await login(server, b.user('bob'));
    await bob.send('PUB x 2\r\nno\r\n');
    await bob.sync();
    const ann = await login(server, a.user('ann'));
    await ann.send('PUB x 3\r\nyes\r\n');
    await ann.sync();
    await alice.waitFor('MSG x 1 3\r\nyes\r\n');
    expect(alice.afterInfo()).toBe('PONG\r\nMSG x 1 3\r\nyes\r\n');
  });

  it('refuses a client without a JWT, or with a signature of another nonce', async () => {
    const operator = new TestOperator();
    const user = operator.account('A').user('alice');
    const server = await start({ operator: { operator } });
    const anonymous = await connect(server);
    await anonymous.send('CONNECT {"verbose":false}\r\nPING\r\n');
    await anonymous.waitClosed();
    expect(anonymous.afterInfo()).toBe(violation);
    const other = await connect(server);
    const replayed = await connect(server);
    await replayed.send(`${connectLine(other, user)}PING\r\n`);
    await replayed.waitClosed();
    expect(replayed.afterInfo()).toBe(violation);
    expect(await refused(server, user, { sign: false })).toBe(violation);
  });

  it('refuses an expired user, a revoked user and a user of an unknown account', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const revoked = account.user('revoked');
    account.revoke(revoked);
    const expired = account.user('expired', { expiresInSeconds: -1 });
    const stranger = new TestOperator().account('A').user('stranger');
    const server = await start({ operator: { operator } });
    expect(await refused(server, expired)).toBe(violation);
    expect(await refused(server, revoked)).toBe(violation);
    expect(await refused(server, stranger)).toBe(violation);
    // A later user of the same account is not revoked.
    const fine = await login(server, account.user('fine'));
    expect(await answered(fine)).toBe('PONG\r\n');
  });

  it('closes a user whose JWT expires while connected', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const server = await start({ operator: { operator } });
    // Signed once the server is up, a start slowed by a busy machine cannot use up its life;
    // 3 s, as the expiry counts whole seconds, leaves at least 2 for the PONG.
    const client = await login(server, account.user('brief', { expiresInSeconds: 3 }));
    expect(await answered(client)).toBe('PONG\r\n');
    await client.waitClosed(8_000);
    // Both servers send their first PING 2 s after the connect, which may come before.
    expect(client.afterInfo()).toMatch(
      /^PONG\r\n(PING\r\n)?-ERR 'User Authentication Expired'\r\n$/,
    );
  });

  it('takes users of a listed signing key, not of an unlisted one', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const listed = account.signingKey();
    const unlisted = new TestOperator().account('X').signingKey();
    const server = await start({ operator: { operator } });
    const signed = await login(server, account.user('signed', { signer: listed }));
    expect(await answered(signed)).toBe('PONG\r\n');
    expect(await refused(server, account.user('forged', { signer: unlisted }))).toBe(violation);
  });

  it('lets a bearer token user in without a nonce signature', async () => {
    const operator = new TestOperator();
    const user = operator.account('A').user('bearer', { bearerToken: true });
    const server = await start({ operator: { operator } });
    const client = await login(server, user, { sign: false });
    expect(await answered(client)).toBe('PONG\r\n');
  });

  it('refuses a bearer token user of an account that disallows bearer tokens', async () => {
    const operator = new TestOperator();
    const account = operator.account('A', { limits: { disallow_bearer: true } });
    const server = await start({ operator: { operator } });
    const bearer = account.user('bearer', { bearerToken: true });
    expect(await refused(server, bearer, { sign: false })).toBe(violation);
    expect(await answered(await login(server, account.user('signing')))).toBe('PONG\r\n');
  });

  it("lets a user in from its JWT's src CIDRs only", async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const elsewhere = account.user('elsewhere', { src: ['10.0.0.0/8', '192.168.1.0/24'] });
    const local = account.user('local', { src: ['10.0.0.0/8', '127.0.0.0/8'] });
    const malformed = account.user('malformed', { src: ['127.0.0.1'] });
    const server = await start({ operator: { operator } });
    expect(await refused(server, elsewhere)).toBe(violation);
    expect(await refused(server, malformed)).toBe(violation);
    expect(await answered(await login(server, local))).toBe('PONG\r\n');
  });

  it("lets a user in within its JWT's connect times only", async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const clock = (hoursFromNow: number) =>
      new Date(Date.now() + hoursFromNow * 3_600_000).toISOString().slice(11, 19);
    // Starts later today, or (past midnight) ended earlier today: never now.
    const later = account.user('later', {
      times: [{ start: clock(2), end: clock(3) }],
      timesLocation: 'UTC',
    });
    const allDay = account.user('all-day', {
      times: [{ start: '00:00:00', end: '23:59:59' }],
      timesLocation: 'America/New_York',
    });
    const nowhere = account.user('nowhere', {
      times: [{ start: '00:00:00', end: '23:59:59' }],
      timesLocation: 'Nowhere/Atlantis',
    });
    const server = await start({ operator: { operator } });
    expect(await refused(server, later)).toBe(violation);
    expect(await refused(server, nowhere)).toBe(violation);
    expect(await answered(await login(server, allDay))).toBe('PONG\r\n');
  });

  it('closes a user whose connect time ends while connected', async () => {
    const operator = new TestOperator();
    const soon = new Date(Date.now() + 2_000).toISOString().slice(11, 19);
    const user = operator
      .account('A')
      .user('brief', { times: [{ start: '00:00:00', end: soon }], timesLocation: 'UTC' });
    const server = await start({ operator: { operator } });
    const client = await login(server, user);
    expect(await answered(client)).toBe('PONG\r\n');
    await client.waitClosed(5_000);
    expect(client.afterInfo()).toBe("PONG\r\n-ERR 'User Authentication Expired'\r\n");
  });

  it.each([
    ['the user JWT', { user: 10, account: 100 }, 10],
    ['the account JWT', { user: -1, account: 10 }, 10],
  ])(
    'tells the client its max_payload from %s and closes it on a larger message',
    async (_, payload, expected) => {
      const operator = new TestOperator();
      const account = operator.account('A', { limits: { payload: payload.account } });
      const user = account.user('small', { limits: { payload: payload.user } });
      const server = await start({ operator: { operator } });
      const client = await login(server, user, { protocol: 1 });
      await client.send('PING\r\n');
      await client.waitFor(/PONG\r\nINFO .*\r\n/);
      const info = /^PONG\r\nINFO (.*)\r\n$/.exec(client.afterInfo());
      expect(JSON.parse(info![1]!).max_payload).toBe(expected);
      await client.send(`PUB x ${expected}\r\n${'a'.repeat(expected)}\r\nPING\r\n`);
      await client.waitFor(/PONG\r\n$/);
      await client.send(`PUB x ${expected + 1}\r\n${'a'.repeat(expected + 1)}\r\n`);
      await client.waitClosed();
      expect(client.afterInfo()).toMatch(/PONG\r\n-ERR 'Maximum Payload Violation'\r\n$/);
    },
  );

  it("applies the user JWT's subscription limit to each of its connections", async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const user = account.user('few', { limits: { subs: 2 } });
    const server = await start({ operator: { operator } });
    const first = await login(server, user);
    const second = await login(server, user);
    await first.send('SUB a 1\r\nSUB b 2\r\nSUB c 3\r\n');
    expect(await answered(first)).toBe("-ERR 'maximum subscriptions exceeded'\r\nPONG\r\n");
    await second.send('SUB a 1\r\nSUB b 2\r\n');
    expect(await answered(second)).toBe('PONG\r\n');
  });

  it('closes a user whose JWT allows no subscription right after its login', async () => {
    const operator = new TestOperator();
    const user = operator.account('A').user('none', { limits: { subs: 0 } });
    const server = await start({ operator: { operator } });
    const client = await login(server, user);
    await client.waitClosed();
    // nats-server sends the error from a goroutine: before or after CONNECT's other answers.
    expect(client.afterInfo()).toContain("-ERR 'maximum subscriptions exceeded'\r\n");
  });

  it('enforces the permissions of the user JWT', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const limited = account.user('limited', {
      pub: { allow: ['ok.>'] },
      sub: { allow: ['in.*'], deny: ['in.secret'] },
    });
    const server = await start({ operator: { operator } });
    const client = await login(server, limited);
    await client.send(
      'PUB no 0\r\n\r\nPUB ok.1 0\r\n\r\nSUB in.secret 1\r\nSUB out 2\r\nSUB in.x 3\r\n',
    );
    expect(await answered(client)).toBe(
      `-ERR 'Permissions Violation for Publish to "no"'\r\n` +
        `-ERR 'Permissions Violation for Subscription to "in.secret"'\r\n` +
        `-ERR 'Permissions Violation for Subscription to "out"'\r\nPONG\r\n`,
    );
  });

  it("applies the account JWT's connection and subscription limits", async () => {
    const operator = new TestOperator();
    const account = operator.account('A', { limits: { conn: 1, subs: 1 } });
    const server = await start({ operator: { operator } });
    const first = await login(server, account.user('first'));
    await first.send('SUB a 1\r\nSUB b 2\r\n');
    expect(await answered(first)).toBe("-ERR 'maximum subscriptions exceeded'\r\nPONG\r\n");
    expect(await refused(server, account.user('second'))).toBe(
      "-ERR 'maximum account active connections exceeded'\r\n",
    );
  });

  it("delivers across accounts by the account JWTs' exports and imports", async () => {
    const operator = new TestOperator();
    const shop = operator.account('SHOP', {
      claims: {
        exports: [
          { subject: 'orders.>', type: 'stream' },
          { subject: 'stock.*', type: 'service' },
        ],
      },
    });
    const analytics = operator.account('ANALYTICS', {
      claims: {
        imports: [
          { subject: 'orders.>', account: shop.publicKey, type: 'stream', to: 'shop' },
          { subject: 'stock.*', account: shop.publicKey, type: 'service' },
          // Not exported: left out, the rest still works.
          { subject: 'secret.>', account: shop.publicKey, type: 'stream' },
        ],
      },
    });
    const server = await start({ operator: { operator } });
    const clerk = await login(server, shop.user('clerk'));
    await clerk.send('SUB stock.* 1\r\n');
    await clerk.sync();
    const analyst = await login(server, analytics.user('analyst'));
    await analyst.send('SUB shop.> 1\r\nSUB inbox 2\r\n');
    await analyst.sync();
    await clerk.send('PUB orders.new 1\r\nx\r\n');
    await analyst.waitFor('MSG shop.orders.new 1 1\r\nx\r\n');
    await analyst.send('PUB stock.apples inbox 1\r\n?\r\n');
    await clerk.waitFor(/MSG stock\.apples 1 (\S+) 1\r\n\?\r\n/);
  });

  it('honours an import of a private export only with a valid activation token', async () => {
    const operator = new TestOperator();
    const shop = operator.account('SHOP', {
      claims: {
        exports: [
          { subject: 'orders.>', type: 'stream', token_req: true },
          { subject: 'stock.*', type: 'service', token_req: true },
        ],
      },
    });
    const signer = shop.signingKey();
    const stranger = new TestOperator().account('STRANGER');
    /** An account importing both exports, with the tokens `issue` makes for it (if any). */
    const importer = (
      name: string,
      issue: (
        account: TestAccount,
        subject: string,
        kind: 'stream' | 'service',
      ) => string | undefined,
    ) => {
      const account = operator.account(name);
      account.addClaims({
        imports: [
          {
            subject: 'orders.>',
            account: shop.publicKey,
            type: 'stream',
            to: 'shop',
            token: issue(account, 'orders.>', 'stream'),
          },
          {
            subject: 'stock.*',
            account: shop.publicKey,
            type: 'service',
            token: issue(account, 'stock.*', 'service'),
          },
        ],
      });
      return account;
    };
    const good = importer('good', (account, subject, kind) =>
      // The service's token is issued by the exporter's signing key.
      shop.activation(account, subject, kind, kind === 'service' ? { signer } : {}),
    );
    const without = importer('without', () => undefined);
    const expired = importer('expired', (account, subject, kind) =>
      shop.activation(account, subject, kind, { expiresInSeconds: -1 }),
    );
    // Tokens that are not for the account make the whole account JWT invalid.
    const forged = importer('forged', (account, subject, kind) =>
      stranger.activation(account, subject, kind),
    );
    const misdirected = importer('misdirected', (_, subject, kind) =>
      shop.activation(shop, subject, kind),
    );
    const server = await start({ operator: { operator } });
    expect(await refused(server, forged.user('forger'))).toBe(violation);
    expect(await refused(server, misdirected.user('lost'))).toBe(violation);
    const clerk = await login(server, shop.user('clerk'));
    await clerk.send('SUB stock.* 1\r\n');
    await clerk.sync();
    const clients = [];
    for (const account of [good, without, expired]) {
      const client = await login(server, account.user(account.name));
      await client.send('SUB shop.> 1\r\n');
      expect(await answered(client)).toBe('PONG\r\n');
      clients.push(client);
    }
    await clerk.send('PUB orders.new 1\r\nx\r\n');
    await clients[0]!.waitFor('MSG shop.orders.new 1 1\r\nx\r\n');
    for (const client of clients) {
      await client.send('PUB stock.apples inbox 0\r\n\r\n');
      await client.sync();
    }
    await clerk.waitFor(/MSG stock\.apples 1 \S+ 0\r\n/);
    await clerk.sync();
    expect(clerk.afterInfo().match(/MSG /g)).toHaveLength(1);
    for (const client of clients.slice(1)) expect(client.afterInfo()).toBe('PONG\r\nPONG\r\n');
  });

  it('stops an import when its activation token expires', async () => {
    const operator = new TestOperator();
    const shop = operator.account('SHOP', {
      claims: { exports: [{ subject: 'orders.>', type: 'stream', token_req: true }] },
    });
    const analytics = operator.account('ANALYTICS');
    // Long enough for the set-up on a busy machine; the wait below ends a second after it.
    const token = shop.activation(analytics, 'orders.>', 'stream', { expiresInSeconds: 4 });
    // The token's own `exp`, not a second computed beside it: the two can straddle a second's
    // boundary, and then the wait ended exactly as nats-server's expiry timer fired.
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const expiresAt = claims.exp * 1000;
    analytics.addClaims({
      imports: [{ subject: 'orders.>', account: shop.publicKey, type: 'stream', token }],
    });
    const server = await start({ operator: { operator } });
    const clerk = await login(server, shop.user('clerk'));
    const analyst = await login(server, analytics.user('analyst'));
    await analyst.send('SUB orders.> 1\r\n');
    await analyst.sync();
    await clerk.send('PUB orders.1 1\r\n1\r\n');
    await analyst.waitFor('MSG orders.1 1 1\r\n1\r\n');
    await new Promise((resolve) => setTimeout(resolve, expiresAt + 1_000 - Date.now()));
    await clerk.send('PUB orders.2 1\r\n2\r\n');
    await clerk.sync();
    // The server's first keepalive PING comes in the wait.
    expect((await answered(analyst)).replaceAll('PING\r\n', '')).toBe(
      'PONG\r\nMSG orders.1 1 1\r\n1\r\nPONG\r\n',
    );
  });

  it('reads the account JWTs of a full resolver directory', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const dir = accountsDir(operator);
    const server = await start({ operator: { operator, resolverDir: dir } });
    const client = await login(server, account.user('alice'));
    expect(await answered(client)).toBe('PONG\r\n');
    const stranger = new TestOperator().account('B').user('stranger');
    expect(await refused(server, stranger)).toBe(violation);
  });

  it.each([
    ['full', '$SYS.REQ.CLAIMS.UPDATE'],
    ['full', '$SYS.REQ.ACCOUNT.<account>.CLAIMS.UPDATE'],
    ['memory', '$SYS.REQ.ACCOUNT.<account>.CLAIMS.UPDATE'],
  ])(
    'takes a pushed account JWT with the %s resolver on %s: a revoked user is refused next',
    async (resolver, pattern) => {
      const operator = new TestOperator();
      const account = operator.account('A');
      const alice = account.user('alice');
      const dir = accountsDir(operator);
      const server = await start({
        operator: { operator, resolverDir: resolver === 'full' ? dir : undefined },
      });
      expect(await answered(await login(server, alice))).toBe('PONG\r\n');
      account.revoke(alice);
      const jwt = account.jwt;
      const answer = await pushed(
        server,
        operator,
        pattern.replace('<account>', account.publicKey),
        jwt,
      );
      expect(answer.data).toEqual({
        account: account.publicKey,
        code: 200,
        message: 'jwt updated',
      });
      expect(await refused(server, alice)).toBe(violation);
      if (resolver === 'full')
        expect(readFileSync(join(dir, `${account.publicKey}.jwt`), 'utf8')).toBe(jwt);
    },
  );

  it('refuses a pushed JWT the operator did not sign', async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const forged = new TestOperator().account('A');
    const server = await start({ operator: { operator } });
    const subject = `$SYS.REQ.ACCOUNT.${account.publicKey}.CLAIMS.UPDATE`;
    const answer = await pushed(server, operator, subject, forged.jwt);
    expect(answer.error).toEqual({
      account: account.publicKey,
      code: 500,
      description: 'jwt update resulted in error - subject does not match jwt content',
    });
  });
});
