import { createUser, fromSeed } from '@nats-io/nkeys';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import type { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

const VIOLATION = "-ERR 'Authorization Violation'\r\n";
const connectLine = (fields: Record<string, unknown>) =>
  `CONNECT ${JSON.stringify({ verbose: false, pedantic: false, ...fields })}\r\n`;

// Cost 4, the lowest bcrypt allows: the hash is checked the same way, only faster.
const hashed = bcrypt.hashSync('s3cret', 4);

const users = [
  { user: 'alice', pass: 'wonderland' },
  { user: 'bob', pass: hashed },
  { user: 'guest', pass: '' },
];

describe.each(bothServers)('authentication against $name', (target) => {
  const { start, connect } = closedAfterEach(target);

  /** Connects with `fields` in CONNECT; resolves with what the server sent by the time it answered or closed. */
  async function login(server: RunningTarget, fields: Record<string, unknown>) {
    const client = await connect(server);
    await client.send(`${connectLine(fields)}PING\r\n`);
    await client.waitUntil((text) => text.includes('PONG\r\n') || client.isClosed);
    if (!client.isClosed && client.text.includes('-ERR')) await client.waitClosed();
    return { client, answer: client.afterInfo() };
  }

  it('lets each user of a users list in with its own password, plain or bcrypt-hashed', async () => {
    const server = await start({ authorization: { users } });
    expect((await login(server, { user: 'alice', pass: 'wonderland' })).answer).toBe('PONG\r\n');
    expect((await login(server, { user: 'bob', pass: 's3cret' })).answer).toBe('PONG\r\n');
    expect((await login(server, { user: 'guest', pass: '' })).answer).toBe('PONG\r\n');
  });

  it.each([
    ['a wrong password', { user: 'alice', pass: 'wonderlanD' }],
    ["another user's password", { user: 'alice', pass: 's3cret' }],
    ['the bcrypt hash itself as the password', { user: 'bob', pass: hashed }],
    ['an unknown user', { user: 'mallory', pass: 'wonderland' }],
    ['no credentials', {}],
    ['a token', { auth_token: 'wonderland' }],
  ])('refuses %s with Authorization Violation and closes', async (_what, fields) => {
    const server = await start({ authorization: { users } });
    const { client, answer } = await login(server, fields);
    expect(answer).toBe(VIOLATION);
    expect(client.isClosed).toBe(true);
  });

  it('checks a bcrypt-hashed token', async () => {
    const server = await start({ authorization: { token: hashed } });
    expect((await login(server, { auth_token: 's3cret' })).answer).toBe('PONG\r\n');
    expect((await login(server, { auth_token: hashed })).answer).toBe(VIOLATION);
  });

  it('keeps the order of what follows CONNECT while a bcrypt password is checked', async () => {
    const server = await start({ authorization: { users } });
    const client = await connect(server);
    await client.send(
      `${connectLine({ user: 'bob', pass: 's3cret', verbose: true })}SUB a 1\r\nPUB a 2\r\nhi\r\nPING\r\n`,
    );
    await client.waitFor('PONG\r\n');
    expect(client.afterInfo()).toBe('+OK\r\n+OK\r\n+OK\r\nMSG a 1 2\r\nhi\r\nPONG\r\n');
  });

  it('checks a later CONNECT again: other credentials change the user, wrong ones close', async () => {
    const server = await start({
      authorization: {
        users: [
          ...users,
          { user: 'carol', pass: 'pw', permissions: { publish: { allow: ['x'] } } },
        ],
      },
    });
    const { client } = await login(server, { user: 'alice', pass: 'wonderland' });
    await client.send(`${connectLine({ user: 'carol', pass: 'pw' })}PUB y 0\r\n\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe(
      `PONG\r\n-ERR 'Permissions Violation for Publish to "y"'\r\nPONG\r\n`,
    );
    await client.send(`${connectLine({ user: 'alice', pass: 'wrong' })}PING\r\n`);
    await client.waitClosed();
    expect(client.afterInfo()).toMatch(/PONG\r\n-ERR 'Authorization Violation'\r\n$/);
  });

  it('accepts nothing before CONNECT, not even PING', async () => {
    const server = await start({ authorization: { users } });
    const client = await connect(server);
    await client.send('PING\r\n');
    expect(await client.waitClosed()).toContain(VIOLATION);
    expect(client.afterInfo()).toBe(VIOLATION);
  });

  it('closes a client that stays silent past auth_timeout', async () => {
    const server = await start({ authorization: { users }, authTimeout: 500 });
    const client = await connect(server);
    const started = Date.now();
    expect(await client.waitClosed()).toContain("-ERR 'Authentication Timeout'\r\n");
    expect(Date.now() - started).toBeGreaterThan(400);
  });

  describe('no_auth_user', () => {
    it('takes a client without credentials for that user, with its permissions', async () => {
      const server = await start({
        authorization: {
          users: [
            ...users,
            { user: 'anon', pass: 'x', permissions: { publish: { allow: ['public.>'] } } },
          ],
        },
        noAuthUser: 'anon',
      });
      const { client, answer } = await login(server, {});
      expect(answer).toBe('PONG\r\n');
      await client.send('PUB private.x 0\r\n\r\n');
      await client.sync();
      expect(client.afterInfo()).toBe(
        `PONG\r\n-ERR 'Permissions Violation for Publish to "private.x"'\r\nPONG\r\n`,
      );
    });

    it('still refuses wrong credentials', async () => {
      const server = await start({ authorization: { users }, noAuthUser: 'guest' });
      expect((await login(server, { user: 'alice', pass: 'nope' })).answer).toBe(VIOLATION);
      expect((await login(server, { user: 'nobody' })).answer).toBe(VIOLATION);
    });

    it('takes a client that starts without CONNECT for that user', async () => {
      const server = await start({ authorization: { users }, noAuthUser: 'guest' });
      const client = await connect(server);
      await client.send('PING\r\n');
      await client.waitFor('PONG\r\n');
      expect(client.afterInfo()).toBe('PONG\r\n');
    });
  });

  describe('nkeys', () => {
    const alice = createUser();
    const nkeyUsers = [{ nkey: alice.getPublicKey() }, ...users];

    const signed = (client: RawClient, seed = alice.getSeed()) => {
      const nonce = client.info().nonce as string;
      const kp = fromSeed(seed);
      return {
        nkey: kp.getPublicKey(),
        sig: Buffer.from(kp.sign(Buffer.from(nonce))).toString('base64url'),
      };
    };

    it('sends a fresh nonce in each INFO when nkey users exist, none otherwise', async () => {
      const withNkeys = await start({ authorization: { users: nkeyUsers } });
      const a = (await connect(withNkeys)).info().nonce;
      const b = (await connect(withNkeys)).info().nonce;
      expect(a).toMatch(/^[A-Za-z0-9_-]{11,}$/);
      expect(b).not.toBe(a);
      const without = await start({ authorization: { users } });
      expect((await connect(without)).info()).not.toHaveProperty('nonce');
    });

    it('lets in a client that signs its nonce, in base64url or standard base64', async () => {
      const server = await start({ authorization: { users: nkeyUsers } });
      const client = await connect(server);
      await client.send(`${connectLine(signed(client))}PING\r\n`);
      await client.waitFor('PONG\r\n');
      expect(client.afterInfo()).toBe('PONG\r\n');

      const standard = await connect(server);
      const { nkey, sig } = signed(standard);
      const sigStd = Buffer.from(sig, 'base64url').toString('base64');
      await standard.send(`${connectLine({ nkey, sig: sigStd })}PING\r\n`);
      await standard.waitFor('PONG\r\n');
      // Password users still log in beside nkey users.
      expect((await login(server, { user: 'alice', pass: 'wonderland' })).answer).toBe('PONG\r\n');
    });

    it.each([
      ['a signature of another connection’s nonce', 'replay'],
      ['a key that is not configured', 'stranger'],
      ['no signature', 'unsigned'],
      ['a signature that is not base64', 'garbled'],
    ])('refuses %s', async (_what, attack) => {
      const server = await start({ authorization: { users: nkeyUsers } });
      const client = await connect(server);
      let fields: Record<string, unknown>;
      if (attack === 'replay') fields = signed(await connect(server));
      else if (attack === 'stranger') fields = signed(client, createUser().getSeed());
      else if (attack === 'unsigned') fields = { nkey: alice.getPublicKey() };
      else fields = { nkey: alice.getPublicKey(), sig: '!!not base64!!' };
      await client.send(`${connectLine(fields)}PING\r\n`);
      expect(await client.waitClosed()).toContain(VIOLATION);
      expect(client.afterInfo()).toBe(VIOLATION);
    });
  });

  describe('hostile CONNECT', () => {
    it.each([
      ['not JSON', 'CONNECT {"user":"alice",\r\n'],
      ['a mistyped password', 'CONNECT {"user":"alice","pass":42}\r\n'],
      ['a mistyped user', 'CONNECT {"user":["alice"],"pass":"wonderland"}\r\n'],
      ['a mistyped nkey', 'CONNECT {"nkey":{},"sig":"x"}\r\n'],
      ['a JSON array', 'CONNECT ["alice","wonderland"]\r\n'],
    ])('closes on %s without a word or letting the client in', async (_what, line) => {
      const server = await start({ authorization: { users } });
      const client = await connect(server);
      await client.send(`${line}PING\r\n`);
      await client.waitClosed();
      // As nats-server: a CONNECT that does not decode closes the connection without a word.
      expect(client.afterInfo()).toBe('');
    });

    it('closes on a CONNECT longer than max_control_line', async () => {
      const server = await start({ authorization: { users }, maxControlLine: 1024 });
      const client = await connect(server);
      await client.send(connectLine({ user: 'alice', pass: 'x'.repeat(4096) }));
      await client.waitClosed();
      expect(client.afterInfo()).toBe("-ERR 'maximum control line exceeded'\r\n");
    });

    it('ignores credentials of a type it does not know, alongside valid ones', async () => {
      const server = await start({ authorization: { users } });
      const { answer } = await login(server, {
        user: 'alice',
        pass: 'wonderland',
        unknown: { nested: [1, 2, 3] },
      });
      expect(answer).toBe('PONG\r\n');
    });
  });
});
