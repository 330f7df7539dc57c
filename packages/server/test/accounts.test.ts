import { describe, expect, it } from 'vitest';
import type { AccountOptions, ExportOptions, ImportOptions } from '../src/index.js';
import type { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

/** Accounts A and B with one user each (password `pw`), and `g` in the global account. */
function accounts(a: Partial<AccountOptions> = {}, b: Partial<AccountOptions> = {}) {
  return {
    authorization: { users: [{ user: 'g', pass: 'pw' }] },
    accounts: {
      A: { users: [{ user: 'a', pass: 'pw' }], ...a },
      B: { users: [{ user: 'b', pass: 'pw' }], ...b },
    },
  };
}

describe.each(bothServers)('accounts against $name', (target) => {
  const { start, connect } = closedAfterEach(target);

  async function login(server: RunningTarget, user: string | undefined, setup = '') {
    const client = await connect(server);
    const credentials = user === undefined ? '' : `,"user":"${user}","pass":"pw"`;
    await client.send(
      `CONNECT {"verbose":false,"pedantic":false,"headers":true,"no_responders":true${credentials}}\r\n${setup}`,
    );
    await client.sync();
    return client;
  }

  /** What `client` receives while `action` runs, up to the PONG of a PING sent after it. */
  async function receivedDuring(client: RawClient, action: () => Promise<unknown>) {
    const before = client.text.length;
    await action();
    await client.sync();
    return client.text.slice(before).replaceAll('PONG\r\n', '');
  }

  async function publish(client: RawClient, protocol: string) {
    await client.send(protocol);
    await client.sync();
  }

  it('keeps each account to its own subject space, $G included', async () => {
    const server = await start(accounts());
    const a = await login(server, 'a', 'SUB > 1\r\n');
    const b = await login(server, 'b', 'SUB > 1\r\n');
    const g = await login(server, 'g', 'SUB > 1\r\n');
    const seenByA = await receivedDuring(a, async () => {
      await publish(b, 'PUB x 2\r\nhi\r\n');
      await publish(g, 'PUB x 2\r\nhi\r\n');
    });
    expect(seenByA).toBe('');
    expect(await receivedDuring(b, () => publish(b, 'PUB x 2\r\nhi\r\n'))).toBe(
      'MSG x 1 2\r\nhi\r\n',
    );
    expect(await receivedDuring(g, () => publish(a, 'PUB x 2\r\nhi\r\n'))).toBe('');
  });

  it('answers a request no subscriber of its own account hears with no responders', async () => {
    const server = await start(accounts());
    await login(server, 'b', 'SUB q 1\r\n');
    const a = await login(server, 'a', 'SUB inbox 1\r\n');
    expect(await receivedDuring(a, () => publish(a, 'PUB q inbox 0\r\n\r\n'))).toBe(
      'HMSG inbox 1 16 16\r\nNATS/1.0 503\r\n\r\n\r\n',
    );
  });

  it('takes a client without credentials for no_auth_user, in that user account', async () => {
    const server = await start({ ...accounts(), noAuthUser: 'a' });
    const a = await login(server, 'a', 'SUB x 1\r\n');
    const anonymous = await login(server, undefined);
    expect(await receivedDuring(a, () => publish(anonymous, 'PUB x 2\r\nhi\r\n'))).toBe(
      'MSG x 1 2\r\nhi\r\n',
    );
  });

  it('shows each connection account in /connz with auth', async () => {
    const server = await start({ ...accounts(), monitoring: true });
    await login(server, 'a');
    await login(server, 'g');
    const connz = (await (await fetch(`${server.httpUrl}/connz?auth=1`)).json()) as {
      connections: { authorized_user: string; account?: string }[];
    };
    const shown = connz.connections.map((c) => [c.authorized_user, c.account]);
    expect(shown).toEqual([
      ['a', 'A'],
      ['g', undefined],
    ]);
    const onlyA = (await (await fetch(`${server.httpUrl}/connz?auth=1&acc=A`)).json()) as {
      connections: { authorized_user: string }[];
    };
    expect(onlyA.connections.map((c) => c.authorized_user)).toEqual(['a']);
  });

  it.each([
    ['a stream nobody exports', { stream: { account: 'A', subject: 'orders.>' } }, []],
    [
      'a stream exported to other accounts only',
      { stream: { account: 'A', subject: 'orders.>' } },
      [{ stream: 'orders.>', accounts: ['A'] }],
    ],
    [
      'a service exported as a stream only',
      { service: { account: 'A', subject: 'orders.x' } },
      [{ stream: 'orders.>' }],
    ],
  ] as [string, ImportOptions, ExportOptions[]][])(
    'refuses to start when an account imports %s',
    async (_what, entry, exports) => {
      await expect(start(accounts({ exports }, { imports: [entry] }))).rejects.toThrow();
    },
  );

  describe('stream exports and imports', () => {
    it('delivers an exported stream in the importing account under its prefix', async () => {
      const server = await start(
        accounts(
          { exports: [{ stream: 'orders.>' }] },
          { imports: [{ stream: { account: 'A', subject: 'orders.>' }, prefix: 'from_a' }] },
        ),
      );
      const a = await login(server, 'a');
      const b = await login(server, 'b', 'SUB from_a.> 1\r\nSUB orders.> 2\r\n');
      const received = await receivedDuring(b, async () => {
        await publish(a, 'PUB orders.new r.1 2\r\nhi\r\n');
        await publish(a, 'PUB other 2\r\nno\r\n');
      });
      expect(received).toBe('MSG from_a.orders.new 1 r.1 2\r\nhi\r\n');
    });

    it('maps an imported stream onto `to`, wildcards in place', async () => {
      const server = await start(
        accounts(
          { exports: [{ stream: 'events.*' }] },
          { imports: [{ stream: { account: 'A', subject: 'events.*' }, to: 'a.events.*' }] },
        ),
      );
      const a = await login(server, 'a');
      const b = await login(server, 'b', 'SUB a.events.* 1\r\n');
      expect(await receivedDuring(b, () => publish(a, 'PUB events.x 1\r\n1\r\n'))).toBe(
        'MSG a.events.x 1 1\r\n1\r\n',
      );
    });

    it('imports a part of an exported wildcard, and nothing flows the other way', async () => {
      const server = await start(
        accounts(
          { exports: [{ stream: 'public.>' }], users: [{ user: 'a', pass: 'pw' }] },
          { imports: [{ stream: { account: 'A', subject: 'public.news' } }] },
        ),
      );
      const a = await login(server, 'a', 'SUB public.> 1\r\n');
      const b = await login(server, 'b', 'SUB public.> 1\r\n');
      const seenByB = await receivedDuring(b, async () => {
        await publish(a, 'PUB public.news 1\r\n1\r\n');
        await publish(a, 'PUB public.sport 1\r\n2\r\n');
      });
      expect(seenByB).toBe('MSG public.news 1 1\r\n1\r\n');
      expect(await receivedDuring(a, () => publish(b, 'PUB public.news 1\r\n3\r\n'))).toBe('');
    });
  });

  describe('service exports and imports', () => {
    const service = (responseType?: 'singleton' | 'stream') =>
      accounts(
        { exports: [{ service: 'svc.>', responseType }] },
        { imports: [{ service: { account: 'A', subject: 'svc.time' }, to: 'time' }] },
      );

    /**
     * `b` asks `time` (its import of `a`'s `svc.time`) with reply inbox.1 (sid 7), `a` serving
     * `svc.>`: both clients and the mapped reply subject `a` got.
     */
    async function mappedRequest(server: RunningTarget) {
      const responder = await login(server, 'a', 'SUB svc.> 1\r\n');
      const requester = await login(server, 'b', 'SUB inbox.1 7\r\n');
      const request = await receivedDuring(responder, () =>
        publish(requester, 'PUB time inbox.1 0\r\n\r\n'),
      );
      return { responder, requester, reply: /(_R_\.\S+)/.exec(request)![1]! };
    }

    it('sends a request to the exporter with a mapped reply; the answer reaches the requester', async () => {
      const server = await start(service());
      const responder = await login(server, 'a', 'SUB svc.> 1\r\n');
      const requester = await login(server, 'b', 'SUB inbox.1 7\r\n');
      const request = await receivedDuring(responder, () =>
        publish(requester, 'PUB time inbox.1 3\r\nnow\r\n'),
      );
      const match = /^HMSG svc\.time 1 (_R_\.\S+) (\d+) (\d+)\r\n([\s\S]*)$/.exec(request);
      expect(match, request).not.toBeNull();
      const [, reply, headerSize, totalSize, rest] = match!;
      const headers = rest!.slice(0, Number(headerSize));
      expect(headers).toMatch(
        /^NATS\/1\.0\r\nNats-Request-Info: \{"acc":"B"(,"rtt":\d+)?\}\r\n\r\n$/,
      );
      expect(rest!.slice(Number(headerSize))).toBe('now\r\n');
      expect(Number(totalSize)).toBe(Number(headerSize) + 3);
      const answered = await receivedDuring(requester, () =>
        publish(responder, `PUB ${reply} 5\r\n12:00\r\n`),
      );
      expect(answered).toBe('MSG inbox.1 7 5\r\n12:00\r\n');
    });

    it('lets a singleton request be answered once, a stream request many times', async () => {
      for (const [type, expected] of [
        ['singleton', 1],
        ['stream', 3],
      ] as const) {
        const { responder, requester, reply } = await mappedRequest(await start(service(type)));
        const answers = await receivedDuring(requester, async () => {
          for (let i = 0; i < 3; i++) await publish(responder, `PUB ${reply} 1\r\n${i}\r\n`);
        });
        expect(answers.split('MSG inbox.1').length - 1, type).toBe(expected);
      }
    });

    /** A stream request (see mappedRequest), and how `b` gets answer `n` sent to its reply. */
    async function streamRequest(responseThreshold?: number) {
      const server = await start(
        accounts(
          { exports: [{ service: 'svc.>', responseType: 'stream', responseThreshold }] },
          { imports: [{ service: { account: 'A', subject: 'svc.time' }, to: 'time' }] },
        ),
      );
      const { responder, requester, reply } = await mappedRequest(server);
      const answer = (n: number) =>
        receivedDuring(requester, () => publish(responder, `PUB ${reply} 1\r\n${n}\r\n`));
      return { requester, answer };
    }

    it('ends a response mapping once the requester stops listening, even if it listens again', async () => {
      const { requester, answer } = await streamRequest();
      expect(await answer(1)).toBe('MSG inbox.1 7 1\r\n1\r\n');
      await publish(requester, 'UNSUB 7\r\nSUB inbox.1 8\r\n');
      expect(await answer(2)).toBe('');
    });

    it('keeps a stream response mapping while answers come within the threshold, then ends it', async () => {
      const { answer } = await streamRequest(1_000);
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      for (let n = 0; n < 4; n++) {
        expect(await answer(n)).toBe(`MSG inbox.1 7 1\r\n${n}\r\n`);
        await pause(400);
      }
      // nats-server checks every threshold for mappings idle a whole threshold; ours every second.
      await pause(2_500);
      expect(await answer(9)).toBe('');
    });

    it('lets a responder answer through the mapped reply as its own permissions allow', async () => {
      for (const allowResponses of [true, false]) {
        const server = await start(
          accounts(
            {
              exports: [{ service: 'svc.>' }],
              users: [
                {
                  user: 'a',
                  pass: 'pw',
                  permissions: { publish: { allow: ['nothing'] }, allowResponses },
                },
              ],
            },
            { imports: [{ service: { account: 'A', subject: 'svc.time' }, to: 'time' }] },
          ),
        );
        const { responder, requester, reply } = await mappedRequest(server);
        const answered = await receivedDuring(requester, () =>
          publish(responder, `PUB ${reply} 2\r\nok\r\n`),
        );
        expect(answered, `allowResponses ${allowResponses}`).toBe(
          allowResponses ? 'MSG inbox.1 7 2\r\nok\r\n' : '',
        );
      }
    });

    it('does not let the importing account reach other subjects of the exporter', async () => {
      const server = await start(service());
      const responder = await login(server, 'a', 'SUB > 1\r\n');
      const requester = await login(server, 'b');
      const seen = await receivedDuring(responder, async () => {
        await publish(requester, 'PUB svc.time 0\r\n\r\n');
        await publish(requester, 'PUB svc.other 0\r\n\r\n');
      });
      expect(seen).toBe('');
    });

    it('gives no no-responders answer for an import, even when the exporter has no responder', async () => {
      const server = await start(service());
      const requester = await login(server, 'b', 'SUB inbox.1 1\r\n');
      const answer = await receivedDuring(requester, () =>
        publish(requester, 'PUB time inbox.1 0\r\n\r\n'),
      );
      expect(answer).toBe('');
    });
  });
});

describe.each(bothServers)('account limits against $name', (target) => {
  const { start, connect } = closedAfterEach(target);

  async function login(server: RunningTarget, user: string) {
    const client = await connect(server);
    await client.send(`CONNECT {"verbose":false,"user":"${user}","pass":"pw"}\r\nPING\r\n`);
    await client.waitUntil((text) => text.includes('PONG\r\n') || client.isClosed);
    return client;
  }

  it("refuses a client past its account's max_connections, and counts those that left", async () => {
    const server = await start({
      accounts: {
        A: { users: [{ user: 'a', pass: 'pw' }], limits: { maxConnections: 2 } },
        B: { users: [{ user: 'b', pass: 'pw' }] },
      },
    });
    const first = await login(server, 'a');
    await login(server, 'a');
    const third = await login(server, 'a');
    await third.waitClosed();
    expect(third.afterInfo()).toBe("-ERR 'maximum account active connections exceeded'\r\n");
    expect((await login(server, 'b')).afterInfo()).toBe('PONG\r\n');
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await login(server, 'a')).afterInfo()).toBe('PONG\r\n');
  });

  it("limits each client's subscriptions to its account's max_subscriptions", async () => {
    const server = await start({
      accounts: { A: { users: [{ user: 'a', pass: 'pw' }], limits: { maxSubscriptions: 1 } } },
    });
    const a = await login(server, 'a');
    await a.send('SUB x 1\r\nSUB y 2\r\n');
    await a.sync();
    expect(a.afterInfo()).toBe("PONG\r\n-ERR 'maximum subscriptions exceeded'\r\nPONG\r\n");
  });
});
