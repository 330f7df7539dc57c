import { connect, nkeys } from '@nats-io/transport-node';
import { startNatsServer } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// What nats-server 2.9.10 checks in an `accounts {}` block before it starts: an account's
// public nkey, and imports that would form a cycle. The same config file goes to nats-server and
// to the slipstream-server bin; both start, or both refuse with nats-server's reason.

const accountKey = nkeys.createAccount().getPublicKey();

/** Accounts A and B with a user each (password pw); `a` and `b` are their blocks' other keys. */
const accounts = (a: string, b: string) => `
accounts {
  A: { users: [ { user: a, password: pw } ], ${a} }
  B: { users: [ { user: b, password: pw } ], ${b} }
}
`;

describe.each(configServers)('account checks at start in $name', ({ bin }) => {
  it("takes an account's public nkey, the account working as before", async () => {
    const server = await startNatsServer({
      bin,
      config: accounts(`nkey: ${accountKey}`, `exports: [ { stream: "news.>" } ]`),
    });
    try {
      const a = await connect({ servers: server.url, user: 'a', pass: 'pw' });
      const b = await connect({ servers: server.url, user: 'b', pass: 'pw' });
      const seen: string[] = [];
      a.subscribe('>', { callback: (_e, m) => void seen.push(m.subject) });
      await a.flush();
      b.publish('news.x');
      a.publish('own');
      await b.flush();
      await a.flush();
      expect(seen).toEqual(['own']);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await server.stop();
    }
  });

  it.each([
    ['a user nkey as an account nkey', `nkey: ${nkeys.createUser().getPublicKey()}`],
    [
      'an nkey with a bad checksum',
      `nkey: ${accountKey.slice(0, -1)}${accountKey.endsWith('A') ? 'B' : 'A'}`,
    ],
  ])('refuses %s', async (_what, nkey) => {
    await expect(startNatsServer({ bin, config: accounts(nkey, '') })).rejects.toThrow(
      /not a valid public nkey for an account/i,
    );
  });

  it.each([
    [
      'stream imports',
      accounts(
        'exports: [ { stream: "x.>" } ], imports: [ { stream: { account: B, subject: "x.>" } } ]',
        'exports: [ { stream: "x.>" } ], imports: [ { stream: { account: A, subject: "x.>" } } ]',
      ),
    ],
    [
      'service imports',
      accounts(
        'exports: [ { service: q } ], imports: [ { service: { account: B, subject: q } } ]',
        'exports: [ { service: q } ], imports: [ { service: { account: A, subject: q } } ]',
      ),
    ],
  ])('refuses %s that form a cycle', async (_what, config) => {
    await expect(startNatsServer({ bin, config })).rejects.toThrow(/import forms a cycle/);
  });

  it('takes imports both ways on subjects that do not meet', async () => {
    const server = await startNatsServer({
      bin,
      config: accounts(
        'exports: [ { stream: "a.>" }, { service: qa } ], imports: [ { stream: { account: B, subject: "b.>" } }, { service: { account: B, subject: qb } } ]',
        'exports: [ { stream: "b.>" }, { service: qb } ], imports: [ { stream: { account: A, subject: "a.>" } }, { service: { account: A, subject: qa } } ]',
      ),
    });
    await server.stop();
  });
});
