import { gunzipSync } from 'node:zlib';
import { TestOperator } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { apiLevelOf } from '../src/api-level.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import { operatorClients } from './operator-clients.js';
import {
  ask,
  expectSameShape,
  expectSameShapes,
  login,
  messages,
  payloads,
  type Received,
  type SideRun,
  sideBySide,
  systemAccountConfig,
} from './system-account-client.js';

/**
 * The system account's requests, side by side: each scenario runs on our server and on
 * nats-server 2.9.10 with the same config and requests, and the answers must have the same
 * JSON shapes (values that vary compared by type) and the same values where they are fixed.
 */
describe('system account requests, ours beside nats-server 2.9.10', () => {
  const onBoth = sideBySide();

  /** A server with a client of A subscribed to `foo`, and the system user asking on `in`. */
  async function withClients({ start, connect }: SideRun) {
    const server = await start({ ...systemAccountConfig, monitoring: true });
    const a = await login(connect, server, 'a', 'SUB foo 5\r\n');
    const sys = await login(connect, server, 'sys', 'SUB in 1\r\n');
    return { server, a, sys, id: sys.info().server_id as string };
  }

  it('answers $SYS.REQ.SERVER.<id>.<X> for ROUTEZ, GATEWAYZ, LEAFZ, ACCOUNTZ, HEALTHZ and STATSZ', async () => {
    const names = ['ROUTEZ', 'GATEWAYZ', 'LEAFZ', 'ACCOUNTZ', 'HEALTHZ', 'STATSZ'];
    const [our, their] = await onBoth(async (run) => {
      const { sys, id } = await withClients(run);
      return ask(
        sys,
        names.map((name) => [`$SYS.REQ.SERVER.${id}.${name}`]),
      );
    });
    for (const [i, name] of names.entries()) {
      if (name === 'STATSZ') continue; // its JetStream config differs (see the events test)
      expectSameShape(our[i], their[i]);
    }
    const accounts = (answer: Record<string, unknown>) =>
      ((answer.data as { accounts: string[] }).accounts ?? []).sort();
    expect(accounts(our[3]!)).toEqual(['$G', 'A', 'B', 'SYS']);
    expect(accounts(their[3]!)).toEqual(accounts(our[3]!));
    expect(Object.keys(our[5]!).sort()).toEqual(['server', 'statsz']);
    expect(Object.keys(their[5]!).sort()).toEqual(['server', 'statsz']);
  });

  it('answers $SYS.REQ.SERVER.PING.<X> for the same requests', async () => {
    const names = ['ROUTEZ', 'GATEWAYZ', 'LEAFZ', 'ACCOUNTZ'];
    const [our, their] = await onBoth(async (run) => {
      const { sys } = await withClients(run);
      return ask(
        sys,
        names.map((name) => [`$SYS.REQ.SERVER.PING.${name}`]),
      );
    });
    expectSameShapes(our, their);
  });

  /**
   * What nats-server 2.11 (whose version we advertise) answers and 2.9.10 leaves without a
   * responder (its 503 status): IDZ, nats-server 2.11.0's events.go:2165-2176, the bare
   * ServerID {name, host, id} of events.go:237-241; and `$SYS.REQ.USER.INFO`, imported into
   * every account and into the system account itself (events.go:1536-1546, 2304-2308), answered
   * `{server, data: UserInfo}` (events.go:1449-1480): the requester's user and account, its
   * permissions as client.go:1060 publicPermissions lists them (auth.go:124-142; left out for a
   * user with none) and `expires` only for credentials that expire.
   */
  it('answers IDZ and $SYS.REQ.USER.INFO as nats-server 2.11, where 2.9.10 has no responder', async () => {
    const permissions = {
      publish: { allow: ['$SYS.REQ.>', 'p.>'], deny: ['p.secret'] },
      subscribe: { deny: ['hidden.>'] },
      allowResponses: { max: 2, expires: 5000 },
    };
    const config = {
      ...systemAccountConfig,
      accounts: {
        ...systemAccountConfig.accounts,
        C: { users: [{ user: 'c', pass: 'pw', permissions }] },
      },
    };
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start({ ...config, monitoring: true });
      const sys = await login(connect, server, 'sys', 'SUB in 1\r\n');
      const id = sys.info().server_id as string;
      const asked = async (user: string, requests: string[]) => {
        const client = user === 'sys' ? sys : await login(connect, server, user, 'SUB in 1\r\n');
        const from = client.text.length;
        // The account's STATZ last, answered by both servers: once it is in, the rest is back.
        for (const subject of [...requests, '$SYS.REQ.ACCOUNT.PING.STATZ']) {
          await client.send(`PUB ${subject} in 0\r\n\r\n`);
        }
        const statz = (m: Received) =>
          typeof m.body.data === 'object' && m.body.data !== null && 'account_statz' in m.body.data;
        await client.waitUntil(() => messages(client, 1, from).some(statz));
        await client.sync();
        const text = client.text.slice(from);
        return {
          answers: messages(client, 1, from)
            .filter((m) => !statz(m))
            .map((m) => m.body),
          noResponders: text.split('NATS/1.0 503').length - 1,
        };
      };
      return {
        id,
        sys: await asked('sys', [
          '$SYS.REQ.SERVER.PING.IDZ',
          `$SYS.REQ.SERVER.${id}.IDZ`,
          '$SYS.REQ.USER.INFO',
        ]),
        a: await asked('a', ['$SYS.REQ.USER.INFO']),
        c: await asked('c', ['$SYS.REQ.USER.INFO']),
      };
    });
    expect(their.sys).toEqual({ answers: [], noResponders: 3 });
    for (const side of [their.a, their.c]) expect(side).toEqual({ answers: [], noResponders: 1 });
    const serverInfo = expect.objectContaining({ id: our.id, ver: NATS_COMPATIBLE_VERSION });
    expect(our.sys).toEqual({
      answers: [
        { name: our.id, host: '127.0.0.1', id: our.id },
        { name: our.id, host: '127.0.0.1', id: our.id },
        { server: serverInfo, data: { user: 'sys', account: 'SYS' } },
      ],
      noResponders: 0,
    });
    expect(our.a).toEqual({
      answers: [{ server: serverInfo, data: { user: 'a', account: 'A' } }],
      noResponders: 0,
    });
    expect(our.c).toEqual({
      answers: [
        {
          server: serverInfo,
          data: {
            user: 'c',
            account: 'C',
            permissions: {
              publish: { allow: ['$SYS.REQ.>', 'p.>'], deny: ['p.secret'] },
              subscribe: { deny: ['hidden.>'] },
              // ttl: a Go duration, in nanoseconds.
              responses: { max: 2, ttl: 5_000_000_000 },
            },
          },
        },
      ],
      noResponders: 0,
    });
  });

  it('reads the request options and filters as nats-server: ACCOUNTZ of an account, errors, another server', async () => {
    const [our, their] = await onBoth(async (run) => {
      const { sys } = await withClients(run);
      return ask(
        sys,
        [
          ['$SYS.REQ.SERVER.PING.ACCOUNTZ', '{"account":"B"}'],
          ['$SYS.REQ.SERVER.PING.ACCOUNTZ', '{"account":"nope"}'],
          ['$SYS.REQ.SERVER.PING.VARZ', '{bad'],
          ['$SYS.REQ.SERVER.PING', '{bad'],
          // Names another server: unanswered, so the next answer is the HEALTHZ.
          ['$SYS.REQ.SERVER.PING.VARZ', '{"server_name":"elsewhere"}'],
          ['$SYS.REQ.SERVER.PING.HEALTHZ', '{"host":"127.0.0.1"}'],
          // Options of the wrong JSON type fail to decode (400), values the endpoint refuses 500.
          ['$SYS.REQ.SERVER.PING.CONNZ', '{"limit":"x"}'],
          ['$SYS.REQ.SERVER.PING.CONNZ', '{"state":"closed"}'],
          // Answered twice: by the PING and by the <account> subscription, which fails to read
          // the options before it sees that PING is no account.
          ['$SYS.REQ.ACCOUNT.PING.STATZ', '{"accounts":[1]}'],
          ['$SYS.REQ.SERVER.PING.CONNZ', '{"sort":"bogus"}'],
          ['$SYS.REQ.SERVER.PING.SUBSZ', '{"test":"a.*"}'],
          // ConnState 1: closed connections only, of which there are none yet; unknown options
          // are ignored.
          ['$SYS.REQ.SERVER.PING.CONNZ', '{"state":1,"unknown":true}'],
        ],
        12,
      );
    });
    expectSameShapes(our, their);
    const detail = (answer: Record<string, unknown>) =>
      (answer.data as { account_detail: AccountDetail }).account_detail;
    expect(detail(our[0]!).account_name).toBe('B');
    expect(importsOf(detail(our[0]!))).toEqual([
      'service $SYS.REQ.ACCOUNT.PING.CONNZ -> SYS $SYS.REQ.ACCOUNT.B.CONNZ',
      'service $SYS.REQ.ACCOUNT.PING.STATZ -> SYS $SYS.REQ.ACCOUNT.B.STATZ',
      'service $SYS.REQ.SERVER.PING.CONNZ -> SYS $SYS.REQ.ACCOUNT.B.CONNZ',
      'service ax -> A svc.x',
      'stream s.> -> A from.a.s.>',
    ]);
    expect(importsOf(detail(their[0]!))).toEqual(importsOf(detail(our[0]!)));
    for (const answers of [our, their]) {
      expect(answers[1]).toMatchObject({
        data: null,
        error: { code: 500, description: 'Account nope does not exist' },
      });
      expect(answers[2]!.error).toMatchObject({ code: 400 });
      expect(answers[3]!.error).toMatchObject({ code: 400 });
      expect(answers[4]!.data).toEqual({ status: 'ok' });
      expect(answers.slice(5, 11).map((a) => a.error)).toEqual([
        {
          code: 400,
          description:
            'json: cannot unmarshal string into Go struct field ConnzEventOptions.limit of type int',
        },
        {
          code: 400,
          description:
            'json: cannot unmarshal string into Go struct field ConnzEventOptions.state of type server.ConnState',
        },
        ...Array(2).fill({
          code: 400,
          description:
            'json: cannot unmarshal number into Go struct field AccountStatzEventOptions.accounts of type string',
        }),
        { code: 500, description: 'invalid sorting option: bogus' },
        { code: 500, description: 'invalid test subject, must be valid publish subject: a.*' },
      ]);
      expect(answers[11]!.data).toMatchObject({ num_connections: 0, total: 0 });
    }
  });

  it("tells a JWT user its nkey, its account's and the seconds its JWT has left ($SYS.REQ.USER.INFO, 2.11)", async () => {
    const operator = new TestOperator();
    const account = operator.account('A');
    const mintedAt = Date.now();
    const user = account.user('brief', {
      expiresInSeconds: 60,
      pub: { allow: ['$SYS.REQ.USER.INFO'] },
      sub: { allow: ['in'] },
    });
    const [our, their] = await onBoth(async ({ start, connect }) => {
      const server = await start({ operator: { operator } });
      const client = await operatorClients(connect).login(server, user);
      const from = client.text.length;
      await client.send('SUB in 1\r\nPUB $SYS.REQ.USER.INFO in 0\r\n\r\n');
      // Both answer at once if at all (ours within the publish, nats-server has no responder).
      await client.sync();
      return messages(client, 1, from);
    });
    expect(their).toEqual([]);
    // Both servers start after the JWT is made: on a loaded machine that takes a second or more.
    const leastLeft = 60 - Math.ceil((Date.now() - mintedAt) / 1000) - 1;
    expect(our.map((m) => m.body.data)).toEqual([
      {
        user: user.publicKey,
        account: account.publicKey,
        permissions: { publish: { allow: ['$SYS.REQ.USER.INFO'] }, subscribe: { allow: ['in'] } },
        // A Go duration cut to whole seconds, what is left of the JWT's 60 s.
        expires: expect.toSatisfy(
          (ns: number) => ns % 1e9 === 0 && ns <= 60e9 && ns >= leastLeft * 1e9,
        ),
      },
    ]);
  });

  /**
   * `$SYS.REQ.ACCOUNT.NSUBS` (nats-server's nsubsRequest, events.go:2311-2348 at v2.9.10 and
   * 3036-3073 at v2.11.0): the bare count of the account's client subscriptions that match a
   * literal subject or that a wildcard covers, of one queue group (base64, a Go []byte) if
   * named; nothing for an account without connections, an unknown one or an unreadable body.
   */
  it('answers $SYS.REQ.ACCOUNT.NSUBS with the count of matching client subscriptions', async () => {
    const q = Buffer.from('q').toString('base64');
    const requests = [
      '{"acc":"A","subject":"foo"}',
      `{"acc":"A","subject":"foo","queue":"${q}"}`,
      '{"acc":"A","subject":"foo.bar"}',
      '{"acc":"A","subject":"foo.>"}',
      `{"acc":"A","subject":"foo.*","queue":"${q}"}`,
      // Unanswered: B has no connection, nope is no account, the bodies do not decode.
      '{"acc":"B","subject":"foo"}',
      '{"acc":"nope","subject":"foo"}',
      '',
      '{bad',
      '{"acc":"A","subject":1}',
      // The system user's own `in`, not the server's subscriptions in SYS.
      '{"acc":"SYS","subject":"$SYS.>"}',
      '{"acc":"SYS","subject":">"}',
    ];
    const [our, their] = await onBoth(async (run) => {
      const { a, sys } = await withClients(run);
      await a.send('SUB foo q 6\r\nSUB foo.* 7\r\nSUB foo.bar 8\r\nSUB foo.bar q 9\r\n');
      await a.sync();
      const from = sys.text.length;
      for (const body of requests) {
        await sys.send(`PUB $SYS.REQ.ACCOUNT.NSUBS in ${Buffer.byteLength(body)}\r\n${body}\r\n`);
      }
      // HEALTHZ last: once its answer is in, the counts before it are too.
      await sys.send('PUB $SYS.REQ.SERVER.PING.HEALTHZ in 0\r\n\r\n');
      await sys.waitUntil(() => payloads(sys, 1, from).some((m) => m.payload.startsWith('{')));
      await sys.sync();
      return payloads(sys, 1, from).map((m) => m.payload);
    });
    expect(their).toEqual(['2', '1', '3', '3', '1', '0', '1', expect.stringContaining('"ok"')]);
    expect(our.slice(0, -1)).toEqual(their.slice(0, -1));
    expect(our.at(-1)).toContain('"ok"');
  });

  it('compresses an answer as its Accept-Encoding header asks, an error answer not', async () => {
    const [our, their] = await onBoth(async (run) => {
      const { sys } = await withClients(run);
      const answers: { encoding: string | undefined; payload: Buffer }[] = [];
      for (const [accept, subject] of [
        ['gzip', '$SYS.REQ.SERVER.PING.VARZ'],
        ['snappy', '$SYS.REQ.SERVER.PING.VARZ'],
        ['br', '$SYS.REQ.SERVER.PING.VARZ'],
        ['gzip', '$SYS.REQ.ACCOUNT.nope.INFO'],
      ]) {
        const from = sys.text.length;
        const headers = `NATS/1.0\r\nAccept-Encoding: ${accept}\r\n\r\n`;
        await sys.send(`HPUB ${subject} in ${headers.length} ${headers.length}\r\n${headers}\r\n`);
        await sys.waitUntil((text) => /(MSG|HMSG) in 1 [^\r]*\r\n/.test(text.slice(from)));
        await sys.sync();
        answers.push(answer(sys.text.slice(from)));
      }
      return answers;
    });
    for (const [gzip, snappy, other, error] of [our, their]) {
      expect(gzip!.encoding).toBe('gzip');
      expect(JSON.parse(gunzipSync(gzip!.payload).toString())).toMatchObject({
        data: { server_id: expect.any(String) },
      });
      expect(snappy!.encoding).toBe('snappy');
      // The snappy framing format's stream identifier chunk.
      expect(snappy!.payload.subarray(0, 10)).toEqual(
        Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]),
      );
      expect(other!.encoding).toBe('identity');
      expect(JSON.parse(other!.payload.toString())).toHaveProperty('data.server_id');
      expect(error!.encoding).toBeUndefined();
      expect(JSON.parse(error!.payload.toString())).toHaveProperty('error.code', 500);
    }
    expectSameShape(
      JSON.parse(gunzipSync(our[0]!.payload).toString()).server,
      JSON.parse(gunzipSync(their[0]!.payload).toString()).server,
    );
  });

  it('answers $SYS.REQ.ACCOUNT.<acc>.<X> for SUBSZ, CONNZ, LEAFZ, JSZ, INFO and STATZ', async () => {
    const names = ['SUBSZ', 'CONNZ', 'LEAFZ', 'JSZ', 'INFO', 'STATZ'];
    const [our, their] = await onBoth(async (run) => {
      const { sys } = await withClients(run);
      return ask(
        sys,
        names.map((name) => [`$SYS.REQ.ACCOUNT.A.${name}`]),
      );
    });
    // INFO's lists are compared entry by entry.
    const info = (answer: Record<string, unknown>) => answer.data as AccountDetail;
    for (const i of [1, 2, 5]) expectSameShape(our[i], their[i]);
    // JSZ: the API statistics lead with the level of the version advertised (2.11 on).
    const jsz = our[3] as { data: { api: { level?: number } } };
    expect(jsz.data.api.level).toBe(apiLevelOf(NATS_COMPATIBLE_VERSION));
    expectSameShape(withoutApiLevel(jsz), their[3]);
    expectSameShape(withoutLists(info(our[4]!)), withoutLists(info(their[4]!)));
    expect(importsOf(info(our[4]!))).toEqual(importsOf(info(their[4]!)));
    expect(importsOf(info(our[4]!))).toHaveLength(3);
    expect(info(our[4]!).imports).toContainEqual(
      expect.objectContaining({
        subject: '$SYS.REQ.USER.INFO',
        account: 'SYS',
        to: '$SYS.REQ.USER.A.INFO',
        type: 'service',
      }),
    );
    expect(exportsOf(info(our[4]!))).toEqual(['service svc.> Singleton', 'stream s.> approved B']);
    expect(exportsOf(info(their[4]!))).toEqual(exportsOf(info(our[4]!)));
    // The weights short of 100% keep the rest on the source, listed as its own destination;
    // each weight is listed added up with those drawn before it.
    expect(info(our[4]!).mappings).toEqual({
      'map.in': [{ subject: 'map.out', weight: 100 }],
      'split.*': [
        { subject: 'split.$1', weight: 10 },
        { subject: 'two.$1', weight: 40 },
        { subject: 'one.$1', weight: 100 },
      ],
    });
    expect(info(their[4]!).mappings).toEqual(info(our[4]!).mappings);
    for (const answers of [our, their]) {
      const subsz = answers[0]!.data as {
        subscriptions_list: { account: string; subject: string }[];
      };
      expect(subsz.subscriptions_list.filter((s) => s.subject === 'foo')).toMatchObject([
        { account: 'A' },
      ]);
      expect(subsz.subscriptions_list.every((s) => s.account === 'A')).toBe(true);
      expect(answers[1]!.data).toMatchObject({
        num_connections: 1,
        connections: [{ name: 'a-app' }],
      });
      expect(answers[3]!.data).toMatchObject({ name: 'A', id: 'A' });
      expect(answers[4]!.data).toMatchObject({
        account_name: 'A',
        jetstream_enabled: true,
        client_connections: 1,
      });
      expect(answers[5]!.data).toMatchObject({ account_statz: [{ acc: 'A', conns: 1 }] });
    }
    // The subscriptions A has of its own: the client's and the imported system services.
    const subjects = (answer: Record<string, unknown>) =>
      (answer.data as { subscriptions_list: { subject: string }[] }).subscriptions_list
        .map((s) => s.subject)
        .filter((s) => s === 'foo' || (s.startsWith('$SYS.') && !UNCOMPARED_IMPORTS.includes(s)))
        .sort();
    expect(subjects(our[0]!)).toEqual(subjects(their[0]!));
  });

  it('answers account requests for unused or unknown accounts as nats-server', async () => {
    const [our, their] = await onBoth(async (run) => {
      const { sys } = await withClients(run);
      return ask(
        sys,
        [
          // B has no connection: its STATZ is left unanswered unless unused ones are asked for.
          ['$SYS.REQ.ACCOUNT.B.STATZ'],
          ['$SYS.REQ.ACCOUNT.B.STATZ', '{"include_unused":true}'],
          ['$SYS.REQ.ACCOUNT.B.JSZ'],
          ['$SYS.REQ.ACCOUNT.nope.INFO'],
          ['$SYS.REQ.ACCOUNT.PING.CONNZ'],
          ['$SYS.REQ.ACCOUNT.PING.STATZ'],
        ],
        5,
      );
    });
    expectSameShapes(our, their);
    for (const answers of [our, their]) {
      expect(answers[0]!.data).toMatchObject({ account_statz: [{ acc: 'B', conns: 0 }] });
      expect(answers[1]!.error).toEqual({
        code: 500,
        description: 'account "B" not jetstream enabled',
      });
      expect(answers[2]!.error).toEqual({ code: 500, description: 'Account nope does not exist' });
      expect(answers[3]!.data).toMatchObject({ server_id: '', connections: null });
      const inUse = (answers[4]!.data as { account_statz: { acc: string }[] }).account_statz;
      expect(inUse.map((s) => s.acc).sort()).toEqual(['A', 'SYS']);
    }
  });

  it('lets every other account ask for its own CONNZ and STATZ through the imported PING subjects', async () => {
    const [our, their] = await onBoth(async (run) => {
      const { server } = await withClients(run);
      const a = await login(run.connect, server, 'a', 'SUB in 1\r\n');
      const answers = await ask(a, [
        ['$SYS.REQ.ACCOUNT.PING.STATZ'],
        ['$SYS.REQ.ACCOUNT.PING.CONNZ'],
        ['$SYS.REQ.SERVER.PING.CONNZ'],
      ]);
      // The rest stays the system account's: no responders in A.
      const from = a.text.length;
      await a.send('PUB $SYS.REQ.SERVER.PING.VARZ in 0\r\n\r\n');
      await a.waitUntil((text) => text.slice(from).includes('NATS/1.0 503'));
      await a.sync();
      return { answers, rest: a.text.slice(from) };
    });
    expectSameShapes(our.answers, their.answers);
    for (const { answers, rest } of [our, their]) {
      expect(rest).not.toContain('{');
      expect(answers[0]!.data).toMatchObject({ account_statz: [{ acc: 'A', conns: 2 }] });
      for (const connz of [answers[1], answers[2]]) {
        expect(connz!.data).toMatchObject({ num_connections: 2 });
      }
    }
  });

  it("keeps an account's traffic in /accstatz after its connections close", async () => {
    const [our, their] = await onBoth(async (run) => {
      const { server, a } = await withClients(run);
      const publisher = await login(run.connect, server, 'a');
      // After the CONNECT's read: nats-server 2.9.10 counts a read's messages for the account
      // the connection was in when the read began.
      await publisher.send('PUB foo 2\r\nhi\r\n'.repeat(3));
      await a.waitUntil((text) => text.split('MSG foo 5').length === 4);
      publisher.close();
      await publisher.waitClosed();
      const stat = async () => {
        const answer = (await (await fetch(`${server.httpUrl}/accstatz`)).json()) as HttpAnswer;
        return answer.account_statz?.find((s) => s.acc === 'A');
      };
      let account = await stat();
      for (let i = 0; i < 50 && account?.conns !== 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        account = await stat();
      }
      return account;
    });
    for (const account of [our, their]) {
      expect(account).toMatchObject({
        acc: 'A',
        conns: 1,
        received: { msgs: 3, bytes: 6 },
        sent: { msgs: 3, bytes: 6 },
      });
    }
  });

  it('serves /accountz, /accstatz, /routez, /gatewayz and /leafz', async () => {
    const paths = [
      '/accountz',
      '/accountz?acc=A',
      '/accstatz',
      '/accstatz?unused=1',
      '/routez',
      '/gatewayz',
      '/leafz',
    ];
    const [our, their] = await onBoth(async (run) => {
      const { server } = await withClients(run);
      return Promise.all(
        paths.map(
          async (path) => (await (await fetch(`${server.httpUrl}${path}`)).json()) as HttpAnswer,
        ),
      );
    });
    for (const i of [0, 2, 3, 4, 5, 6]) expectSameShape(our[i], their[i]);
    const ourDetail = our[1]!.account_detail as AccountDetail;
    const theirDetail = their[1]!.account_detail as AccountDetail;
    expectSameShape(withoutLists(ourDetail), withoutLists(theirDetail));
    expect(importsOf(ourDetail)).toEqual(importsOf(theirDetail));
    expect(exportsOf(ourDetail)).toEqual(exportsOf(theirDetail));
    const accounts = (answer: HttpAnswer | undefined) =>
      answer?.account_statz?.map((s) => s.acc).sort();
    for (const answers of [our, their]) {
      expect(answers[0]!.system_account).toBe('SYS');
      expect(accounts(answers[2])).toEqual(['A', 'SYS']);
      expect(accounts(answers[3])).toEqual(['$G', 'A', 'B', 'SYS']);
    }
  });
});

/** The lists of an account's details (nats-server's AccountInfo) the tests compare. */
interface AccountDetail {
  account_name: string;
  mappings?: Record<string, { subject: string; weight: number }[]>;
  imports?: {
    subject: string;
    account: string;
    to?: string;
    local_subject?: string;
    type: string;
  }[];
  exports?: {
    subject: string;
    type: string;
    response_type?: string;
    approved_accounts?: string[];
  }[];
}

/**
 * The imports a side has and the other not: JetStream's `$JS.API.>` (an import from the system
 * account in nats-server, an API served in each account in ours) and nats-server 2.11's
 * `$SYS.REQ.USER.INFO`, which 2.9.10 does not have.
 */
const UNCOMPARED_IMPORTS = ['$JS.API.>', '$SYS.REQ.USER.INFO'];

/** An account's imports as `type subject -> account to`, sorted; UNCOMPARED_IMPORTS left out. */
function importsOf(detail: AccountDetail): string[] {
  return (detail.imports ?? [])
    .filter((i) => !UNCOMPARED_IMPORTS.includes(i.subject))
    .map((i) => `${i.type} ${i.subject} -> ${i.account} ${i.to ?? i.local_subject}`)
    .sort();
}

/** An account's exports as `type subject [response type] [approved accounts]`, sorted. */
function exportsOf(detail: AccountDetail): string[] {
  return (detail.exports ?? [])
    .map((e) =>
      [
        e.type,
        e.subject,
        e.response_type,
        e.approved_accounts && `approved ${e.approved_accounts.sort().join(',')}`,
      ]
        .filter((part) => part !== undefined)
        .join(' '),
    )
    .sort();
}

/** The details but for their lists, which are compared apart. */
function withoutLists(detail: AccountDetail) {
  const { imports: _, exports: __, ...rest } = detail;
  return rest;
}

/** A JSZ answer without its API statistics' `level`, which 2.9.10 does not write. */
function withoutApiLevel(answer: { data: { api: { level?: number } } }) {
  const { level: _, ...api } = answer.data.api;
  return { ...answer, data: { ...answer.data, api } };
}

/** The fields of the monitoring answers the test reads. */
interface HttpAnswer {
  system_account?: string;
  account_detail?: unknown;
  account_statz?: {
    acc: string;
    conns: number;
    received: { msgs: number; bytes: number };
    sent: { msgs: number; bytes: number };
  }[];
}

/** The first answer on sid 1 in `text`: its Content-Encoding (none for a MSG) and payload. */
function answer(text: string): { encoding: string | undefined; payload: Buffer } {
  const frame = /(?:MSG in 1 +(\d+)|HMSG in 1 +(\d+) (\d+))\r\n/.exec(text)!;
  const start = frame.index + frame[0].length;
  if (frame[1] !== undefined) {
    return {
      encoding: undefined,
      payload: Buffer.from(text.slice(start, start + Number(frame[1])), 'latin1'),
    };
  }
  const headers = text.slice(start, start + Number(frame[2]));
  return {
    encoding: /\r\nContent-Encoding: *([^\r]*)\r\n/.exec(headers)?.[1],
    payload: Buffer.from(text.slice(start + Number(frame[2]), start + Number(frame[3])), 'latin1'),
  };
}
