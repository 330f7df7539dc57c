import { describe, expect, it } from 'vitest';
import type { AccountOptions, PermissionsOptions } from '../src/index.js';
import type { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

// Permission bypass attempts through JetStream's subjects ($JS.API, $JS.ACK, deliver subjects)
// and the system account's ($SYS): each must end as nats-server 2.9.10 ends it.

const pubViolation = (subject: string) =>
  `-ERR 'Permissions Violation for Publish to "${subject}"'\r\n`;
const subViolation = (subject: string) =>
  `-ERR 'Permissions Violation for Subscription to "${subject}"'\r\n`;

interface ApiAnswer {
  error?: { err_code: number };
  [field: string]: unknown;
}

const STREAM = { name: 'S', subjects: ['s.>'], storage: 'memory' };
const PUSH_CONSUMER = { durable_name: 'P', deliver_subject: 'deliver.s', ack_policy: 'explicit' };

describe.each(bothServers)('JetStream and $SYS permissions against $name', (target) => {
  const { start, connect } = closedAfterEach(target);

  /** Account JS (JetStream) with users `admin` (no limits) and `limited` (these permissions). */
  function serve(permissions: PermissionsOptions) {
    return start({
      jetstream: true,
      accounts: {
        JS: {
          users: [
            { user: 'admin', pass: 'pw' },
            { user: 'limited', pass: 'pw', permissions },
          ],
          jetstream: true,
        },
      },
    });
  }

  /** Each login's own reply prefix, `_INBOX.<user>`: users of one account share subjects. */
  const inboxes = new Map<RawClient, string>();

  /** Logs `user` in, subscribed to its replies as sid 1, then sends `setup`; forgets INFO. */
  async function login(server: RunningTarget, user: string, setup = ''): Promise<RawClient> {
    const client = await connect(server);
    const inbox = `_INBOX.${user}`;
    inboxes.set(client, inbox);
    await client.send(
      `CONNECT {"verbose":false,"pedantic":false,"headers":true,"user":"${user}","pass":"pw"}\r\nSUB ${inbox}.> 1\r\n${setup}`,
    );
    await client.sync();
    client.text = '';
    return client;
  }

  /** What the server sends `client` for `protocol`, up to the PONG of a PING sent after it. */
  async function answer(client: RawClient, protocol: string): Promise<string> {
    const before = client.text.length;
    await client.send(protocol);
    await client.sync();
    return client.text.slice(before).replace(/PONG\r\n$/, '');
  }

  let nextInbox = 1;
  /** A request's PUB line: to `subject`, replying to a fresh inbox of `client`. */
  function request(
    client: RawClient,
    subject: string,
    body: object = {},
  ): { inbox: string; protocol: string } {
    const inbox = `${inboxes.get(client)}.${nextInbox++}`;
    const json = JSON.stringify(body);
    return { inbox, protocol: `PUB ${subject} ${inbox} ${Buffer.byteLength(json)}\r\n${json}\r\n` };
  }

  /** A JetStream API request by `client`: its JSON answer. */
  async function api(client: RawClient, subject: string, body: object = {}): Promise<ApiAnswer> {
    const { inbox, protocol } = request(client, subject, body);
    const before = client.text.length;
    await client.send(protocol);
    return JSON.parse(await client.messageTo(inbox, before)) as ApiAnswer;
  }

  /** `limited`'s requests to these subjects are refused and reach no JetStream API. */
  async function expectRefused(limited: RawClient, subjects: [string, object?][]) {
    for (const [subject, body] of subjects) {
      expect(await answer(limited, request(limited, subject, body).protocol)).toBe(
        pubViolation(subject),
      );
    }
  }

  it('a user denied $JS.API.> cannot create, delete or add consumers to streams', async () => {
    const server = await serve({ publish: { deny: ['$JS.API.>'] } });
    const admin = await login(server, 'admin', '');
    const limited = await login(server, 'limited', '');
    expect((await api(admin, '$JS.API.STREAM.CREATE.S', STREAM)).error).toBeUndefined();
    await expectRefused(limited, [
      ['$JS.API.STREAM.CREATE.T', { ...STREAM, name: 'T', subjects: ['t.>'] }],
      ['$JS.API.STREAM.DELETE.S'],
      ['$JS.API.STREAM.PURGE.S'],
      ['$JS.API.CONSUMER.DURABLE.CREATE.S.D', { stream_name: 'S', config: { durable_name: 'D' } }],
      ['$JS.API.CONSUMER.CREATE.S', { stream_name: 'S', config: {} }],
    ]);
    expect((await api(admin, '$JS.API.STREAM.NAMES')).streams).toEqual(['S']);
    expect((await api(admin, '$JS.API.STREAM.INFO.S')).state).toMatchObject({ consumer_count: 0 });
  });

  it('a user allowed only $JS.API.STREAM.INFO.* reads stream info and changes nothing', async () => {
    const server = await serve({
      publish: { allow: ['$JS.API.STREAM.INFO.*'] },
      subscribe: { allow: ['_INBOX.limited.>'] },
    });
    const admin = await login(server, 'admin', '');
    const limited = await login(server, 'limited', '');
    expect((await api(admin, '$JS.API.STREAM.CREATE.S', STREAM)).error).toBeUndefined();
    // The API's reply reaches the requester through its allowed inbox.
    expect((await api(limited, '$JS.API.STREAM.INFO.S')).config).toMatchObject({ name: 'S' });
    await expectRefused(limited, [
      ['$JS.API.STREAM.DELETE.S'],
      ['$JS.API.STREAM.UPDATE.S', { ...STREAM, subjects: ['other.>'] }],
      ['$JS.API.CONSUMER.DURABLE.CREATE.S.D', { stream_name: 'S', config: { durable_name: 'D' } }],
      ['$JS.API.STREAM.NAMES'],
    ]);
    expect((await api(admin, '$JS.API.STREAM.INFO.S')).config).toMatchObject({
      subjects: ['s.>'],
    });
  });

  it("a user cannot read a push consumer's deliver subject it may not subscribe to", async () => {
    const server = await serve({ subscribe: { allow: ['_INBOX.limited.>'] } });
    const admin = await login(server, 'admin', '');
    const limited = await login(server, 'limited');
    expect((await api(admin, '$JS.API.STREAM.CREATE.S', STREAM)).error).toBeUndefined();
    expect(await answer(limited, 'SUB deliver.s 5\r\n')).toBe(subViolation('deliver.s'));
    expect(await answer(limited, 'SUB deliver.* 3\r\n')).toBe(subViolation('deliver.*'));
    expect(await answer(limited, 'SUB > 4\r\n')).toBe(subViolation('>'));
    const created = await api(admin, '$JS.API.CONSUMER.DURABLE.CREATE.S.P', {
      stream_name: 'S',
      config: PUSH_CONSUMER,
    });
    expect(created.error).toBeUndefined();
    const before = limited.text.length;
    await answer(admin, 'PUB s.1 6\r\nsecret\r\n');
    // Delivered, but to nobody: the consumer waits with the message pending.
    await limited.sync();
    expect(limited.text.slice(before)).toBe('PONG\r\n');
  });

  it('an ack to $JS.ACK is a publish, refused when publish permissions deny it', async () => {
    const server = await serve({ publish: { deny: ['$JS.ACK.>'] } });
    const admin = await login(server, 'admin', '');
    const limited = await login(server, 'limited', 'SUB deliver.s 7\r\n');
    expect((await api(admin, '$JS.API.STREAM.CREATE.S', STREAM)).error).toBeUndefined();
    const consumer = { stream_name: 'S', config: PUSH_CONSUMER };
    expect((await api(admin, '$JS.API.CONSUMER.DURABLE.CREATE.S.P', consumer)).error).toBe(
      undefined,
    );
    await answer(admin, 'PUB s.1 1\r\nx\r\n');
    const delivery = await limited.waitFor(/MSG s\.1 7 (\$JS\.ACK\.\S+) 1\r\nx\r\n/);
    const ackSubject = /MSG s\.1 7 (\$JS\.ACK\.\S+) 1/.exec(delivery)![1]!;
    expect(await answer(limited, `PUB ${ackSubject} 0\r\n\r\n`)).toBe(pubViolation(ackSubject));
    const pending = async () =>
      (await api(admin, '$JS.API.CONSUMER.INFO.S.P')).num_ack_pending as number;
    expect(await pending()).toBe(1);
    // The same ack from a user allowed to publish it is taken.
    await answer(admin, `PUB ${ackSubject} 0\r\n\r\n`);
    expect(await pending()).toBe(0);
  });

  it('allow_responses lets a responder answer once to a JetStream API reply subject', async () => {
    // The requester picks the reply subject, so a responder that may publish nothing else can
    // still send one message to it, even a $JS.API request: both servers let it through.
    const server = await serve({
      publish: { deny: ['>'] },
      subscribe: { allow: ['svc'] },
      allowResponses: true,
    });
    const admin = await login(server, 'admin');
    const limited = await login(server, 'limited', 'SUB svc 2\r\n');
    expect((await api(admin, '$JS.API.STREAM.CREATE.S', STREAM)).error).toBeUndefined();
    await answer(admin, 'PUB svc $JS.API.STREAM.INFO.S 0\r\n\r\n');
    await limited.waitFor('MSG svc 2 $JS.API.STREAM.INFO.S 0\r\n');
    expect(await answer(limited, 'PUB $JS.API.STREAM.INFO.S 0\r\n\r\n')).toBe('');
    // One response only: the second is a violation.
    expect(await answer(limited, 'PUB $JS.API.STREAM.INFO.S 0\r\n\r\n')).toBe(
      pubViolation('$JS.API.STREAM.INFO.S'),
    );
    expect(await answer(limited, 'PUB $JS.API.STREAM.DELETE.S 0\r\n\r\n')).toBe(
      pubViolation('$JS.API.STREAM.DELETE.S'),
    );
    expect((await api(admin, '$JS.API.STREAM.NAMES')).streams).toEqual(['S']);
  });

  describe('across accounts', () => {
    const user = (name: string) => [{ user: name, pass: 'pw' }];
    function serveAccounts(accounts: Record<string, AccountOptions>) {
      return start({ jetstream: true, systemAccount: 'SYS', accounts });
    }

    it("a user subscribed to $SYS.> in its own account sees no other account's events", async () => {
      const server = await serveAccounts({
        A: { users: user('a') },
        B: { users: user('b') },
        SYS: { users: user('sys') },
      });
      const a = await login(server, 'a', 'SUB $SYS.> 2\r\n');
      const sys = await login(server, 'sys', 'SUB $SYS.ACCOUNT.B.CONNECT 2\r\n');
      const b = await login(server, 'b');
      await sys.waitFor('MSG $SYS.ACCOUNT.B.CONNECT 2 ');
      b.close();
      await a.sync();
      expect(a.text).toBe('PONG\r\n');
    });

    it("an account's JetStream traffic stays in it: another account's > sees none", async () => {
      const server = await serveAccounts({
        A: { users: user('a'), jetstream: true },
        B: { users: user('b'), jetstream: true },
        SYS: { users: user('sys') },
      });
      const a = await login(server, 'a', '');
      const b = await login(server, 'b', 'SUB > 2\r\n');
      expect((await api(a, '$JS.API.STREAM.CREATE.S', STREAM)).error).toBeUndefined();
      const consumer = { stream_name: 'S', config: PUSH_CONSUMER };
      expect((await api(a, '$JS.API.CONSUMER.DURABLE.CREATE.S.P', consumer)).error).toBe(undefined);
      expect((await api(a, 's.1', {})).seq).toBe(1);
      await answer(a, 'SUB deliver.s 3\r\n');
      await a.waitFor('MSG s.1 3 $JS.ACK.S.P.');
      await b.sync();
      expect(b.text).toBe('PONG\r\n');
    });
  });
});
