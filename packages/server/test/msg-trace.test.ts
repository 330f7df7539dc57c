import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  NATS_COMPATIBLE_VERSION,
  type NatsServer,
  type ServerOptions,
  silentLogger,
  startServer,
} from '../src/index.js';
import { delay, RawClient } from './raw-client.js';
import { closedAfterEach, natsServer, ours } from './targets.js';

// Message tracing as nats-server 2.11.0 does it (server/msgtrace.go); each expectation cites
// the 2.11.0 test (server/msgtrace_test.go) whose shape it checks. nats-server 2.9.10 has no
// tracing: see the last test.

const servers: NatsServer[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Partial<ServerOptions> = {}): Promise<NatsServer> {
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger,
    ...options,
  });
  servers.push(server);
  return server;
}

/** A client past CONNECT (headers on), with `name` and `user` as given. */
async function client(
  server: NatsServer,
  connect: { name?: string; user?: string; pass?: string; echo?: boolean } = {},
): Promise<RawClient> {
  const raw = await RawClient.connectAndGreet(server.port);
  clients.push(raw);
  await raw.send(`CONNECT ${JSON.stringify({ verbose: false, headers: true, ...connect })}\r\n`);
  await raw.sync();
  return raw;
}

/** A client as `client` makes it, subscribed with `subs` (SUB lines) and synced. */
async function subscriber(
  server: NatsServer,
  connect: Parameters<typeof client>[1],
  subs: string,
): Promise<RawClient> {
  const raw = await client(server, connect);
  await raw.send(subs);
  await raw.sync();
  return raw;
}

/** The headers of a message traced to my.trace.subj, trace-only or not. */
const traceTo = (only: boolean) => ({
  'Nats-Trace-Dest': 'my.trace.subj',
  'Nats-Trace-Only': String(only),
});

/** HPUB of `payload` with `headers`. */
function hpub(subject: string, headers: Record<string, string>, payload: string, reply?: string) {
  const block = `NATS/1.0\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  const size = Buffer.byteLength(block) + Buffer.byteLength(payload);
  return `HPUB ${subject}${reply ? ` ${reply}` : ''} ${Buffer.byteLength(block)} ${size}\r\n${block}${payload}\r\n`;
}

interface TraceEvent {
  server: { name: string; id: string; ver: string; seq: number; jetstream: boolean; flags: number };
  request: { header?: Record<string, string[]>; msgsize?: number };
  hops?: number;
  events: ({ type: string; ts: string } & Record<string, unknown>)[];
}

/** Subscribes `tracer` to `subject` and returns a function that reads the next trace event. */
async function traceEvents(tracer: RawClient, subject = 'my.trace.subj') {
  await tracer.send(`SUB ${subject} 999\r\n`);
  await tracer.sync();
  let from = tracer.text.length;
  return async (): Promise<TraceEvent> => {
    const body = await tracer.messageTo(subject, from);
    from = tracer.text.indexOf(body, from) + body.length;
    return JSON.parse(body) as TraceEvent;
  };
}

const ofType = (event: TraceEvent, type: string) => event.events.filter((e) => e.type === type);

describe('message tracing (nats-server 2.11)', () => {
  it('traces a publish: ingress, subject mapping and one egress per subscription (TestMsgTraceBasic)', async () => {
    const server = await start({ mappings: { foo: 'bar' } });
    const publisher = await client(server);
    const next = await traceEvents(publisher);
    const pubCid = (publisher.info() as { client_id: number }).client_id;

    // Nobody listens: the event has the ingress and nothing else.
    await publisher.send(hpub('dummy', traceTo(true), 'hello!'));
    const lonely = await next();
    expect(lonely.server).toMatchObject({
      name: server.info.server_name,
      ver: NATS_COMPATIBLE_VERSION,
    });
    expect(lonely.request.header).toEqual({
      'Nats-Trace-Dest': ['my.trace.subj'],
      'Nats-Trace-Only': ['true'],
    });
    expect(lonely.request.msgsize).toBeGreaterThan(20);
    expect(lonely.events).toEqual([
      { type: 'in', ts: expect.any(String), kind: 0, cid: pubCid, acc: '$G', subj: 'dummy' },
    ]);

    const both = await subscriber(server, { name: 'sub1And2' }, 'SUB bar 1\r\nSUB bar 2\r\n');
    const wildcard = await subscriber(server, {}, 'SUB * 3\r\n');
    const bothCid = (both.info() as { client_id: number }).client_id;

    for (const only of [true, false]) {
      const before = [both.text.length, wildcard.text.length];
      await publisher.send(
        hpub(
          'foo',
          {
            'Some-App-Header': 'some value',
            'Nats-Trace-Dest': 'my.trace.subj',
            ...(only ? { 'Nats-Trace-Only': 'true' } : {}),
          },
          'hello!',
        ),
      );
      const event = await next();
      await both.sync();
      await wildcard.sync();
      const delivered = [both.text.slice(before[0]), wildcard.text.slice(before[1])];
      if (only) {
        expect(delivered.join('')).not.toContain('HMSG');
      } else {
        // Delivered with its headers, trace headers included.
        expect(delivered[0]!.match(/HMSG bar [12] /g)).toHaveLength(2);
        expect(delivered[1]).toContain('HMSG bar 3 ');
        expect(delivered[0]).toContain('Nats-Trace-Dest: my.trace.subj\r\n');
      }
      expect(Object.keys(event.request.header!)).toHaveLength(only ? 3 : 2);
      expect(event.events[0]).toMatchObject({ type: 'in', kind: 0, acc: '$G', subj: 'foo' });
      expect(ofType(event, 'sm')).toEqual([{ type: 'sm', ts: expect.any(String), to: 'bar' }]);
      const egress = ofType(event, 'eg');
      expect(egress).toHaveLength(3);
      expect(egress.filter((e) => e.cid === bothCid)).toEqual([
        { type: 'eg', ts: expect.any(String), kind: 0, cid: bothCid, name: 'sub1And2', sub: 'bar' },
        { type: 'eg', ts: expect.any(String), kind: 0, cid: bothCid, name: 'sub1And2', sub: 'bar' },
      ]);
      expect(egress.find((e) => e.cid !== bothCid)).toMatchObject({ sub: '*' });
      expect(egress.find((e) => e.cid !== bothCid)).not.toHaveProperty('name');
    }
  });

  it('traces one egress per queue group (TestMsgTraceWithQueueSub)', async () => {
    const server = await start();
    const publisher = await client(server);
    const next = await traceEvents(publisher);
    const sub1 = await subscriber(server, { name: 'sub1' }, 'SUB foo bar 1\r\n');
    const sub2 = await subscriber(server, { name: 'sub2' }, 'SUB foo bar 1\r\nSUB * baz 2\r\n');
    for (const only of [true, false]) {
      await publisher.send(hpub('foo', traceTo(only), 'hello'));
      const egress = ofType(await next(), 'eg');
      expect(egress.map((e) => [e.sub, e.queue]).sort()).toEqual([
        ['*', 'baz'],
        ['foo', 'bar'],
      ]);
    }
    await sub1.sync();
    await sub2.sync();
    // Trace-only: nothing; then once to group bar and once to group baz.
    expect((sub1.text + sub2.text).match(/HMSG foo/g)).toHaveLength(2);
  });

  it('says why a publish was refused, with no egress (TestMsgTraceIngressErrors)', async () => {
    const server = await start({
      accounts: {
        A: {
          users: [
            {
              user: 'a',
              pass: 'pwd',
              permissions: {
                subscribe: { allow: ['my.trace.subj', 'foo'] },
                publish: { allow: ['foo', 'bar.>'], deny: ['bar.baz'] },
              },
            },
          ],
        },
      },
    });
    const tracer = await client(server, { user: 'a', pass: 'pwd' });
    const next = await traceEvents(tracer);
    await tracer.send('SUB foo 1\r\n');
    const publisher = await client(server, { user: 'a', pass: 'pwd' });
    const trace = traceTo(false);
    for (const [subject, reply, error] of [
      ['bar.baz', undefined, 'Permissions Violation for Publish to "bar.baz"'],
      ['_GR_.foo', undefined, 'Permissions Violation for Publish to "_GR_.foo"'],
      ['foo', '_R_.bar', 'Permissions Violation for Publish with Reply of "_R_.bar"'],
    ] as const) {
      await publisher.send(hpub(subject, trace, 'hello', reply));
      const event = await next();
      expect(event.events).toEqual([
        expect.objectContaining({ type: 'in', acc: 'A', subj: subject, error }),
      ]);
    }
  });

  it('says why a subscription did not get the message (TestMsgTraceEgressErrors)', async () => {
    const server = await start({
      authorization: {
        users: [
          {
            user: 'a',
            pass: 'pwd',
            permissions: {
              subscribe: { allow: ['my.trace.subj', 'foo', 'bar.>'], deny: ['bar.bat'] },
            },
          },
        ],
      },
    });
    const tracer = await client(server, { user: 'a', pass: 'pwd' });
    const next = await traceEvents(tracer);
    const trace = traceTo(false);

    const noEcho = await client(server, { user: 'a', pass: 'pwd', echo: false });
    await noEcho.send(`SUB foo 1\r\n${hpub('foo', trace, 'hello')}`);
    expect(ofType(await next(), 'eg')).toEqual([
      expect.objectContaining({ sub: 'foo', error: 'Not delivered because of no echo' }),
    ]);

    const denied = await client(server, { user: 'a', pass: 'pwd' });
    await denied.send(`SUB bar.> 1\r\n${hpub('bar.bat', trace, 'hello')}`);
    expect(ofType(await next(), 'eg')).toEqual([
      expect.objectContaining({
        sub: 'bar.>',
        error: 'Not delivered because subscription denies this subject',
      }),
    ]);
    await denied.sync();
    expect(denied.text).not.toContain('HMSG');
  });

  describe('across accounts', () => {
    // v2.11.0 TestMsgTraceServiceImport: D's bat maps to baz; D imports B's bar as baz and C's
    // everything; B imports A's everything; A maps bar to bozo.
    const serviceAccounts = (allowTrace: boolean): ServerOptions['accounts'] => ({
      A: {
        users: [{ user: 'a', pass: 'pwd' }],
        exports: [{ service: '>', allowTrace }],
        mappings: { bar: 'bozo' },
      },
      B: {
        users: [{ user: 'b', pass: 'pwd' }],
        imports: [{ service: { account: 'A', subject: '>' } }],
        exports: [{ service: '>', allowTrace }],
      },
      C: { users: [{ user: 'c', pass: 'pwd' }], exports: [{ service: '>', allowTrace }] },
      D: {
        users: [{ user: 'd', pass: 'pwd' }],
        imports: [
          { service: { account: 'B', subject: 'bar' }, to: 'baz' },
          { service: { account: 'C', subject: '>' } },
        ],
        mappings: { bat: 'baz' },
      },
    });

    it.each([false, true])(
      'records each service import, and follows it further with allow_trace %s (TestMsgTraceServiceImport)',
      async (allowTrace) => {
        const server = await start({ accounts: serviceAccounts(allowTrace) });
        const requestor = await client(server, { user: 'd', pass: 'pwd', name: 'Requestor' });
        const next = await traceEvents(requestor);
        await requestor.send('SUB my.service.response.inbox 1\r\n');
        const serviceA = await subscriber(
          server,
          { user: 'a', pass: 'pwd', name: 'ServiceA' },
          'SUB * my_queue 1\r\n',
        );
        const serviceC = await subscriber(
          server,
          { user: 'c', pass: 'pwd', name: 'ServiceC' },
          'SUB baz 1\r\n',
        );
        for (const only of [true, false]) {
          await requestor.send(hpub('bat', traceTo(only), 'request', 'my.service.response.inbox'));
          const event = await next();
          expect(event.events[0]).toMatchObject({ type: 'in', acc: 'D', subj: 'bat' });
          expect(ofType(event, 'sm')).toMatchObject([{ to: 'baz' }]);
          const imports = ofType(event, 'si').map(({ acc, from, to }) => ({ acc, from, to }));
          expect(imports).toEqual(
            expect.arrayContaining([
              { acc: 'C', from: 'baz', to: 'baz' },
              { acc: 'B', from: 'baz', to: 'bar' },
              ...(allowTrace ? [{ acc: 'A', from: 'bar', to: 'bozo' }] : []),
            ]),
          );
          expect(imports).toHaveLength(allowTrace ? 3 : 2);
          const egress = ofType(event, 'eg');
          if (!allowTrace) expect(egress).toEqual([]);
          else {
            expect(egress).toEqual(
              expect.arrayContaining([
                expect.objectContaining({
                  name: 'ServiceA',
                  acc: 'A',
                  sub: '*',
                  queue: 'my_queue',
                }),
                expect.objectContaining({ name: 'ServiceC', acc: 'C', sub: 'baz' }),
              ]),
            );
            expect(egress).toHaveLength(2);
          }
          await serviceA.sync();
          await serviceC.sync();
          const got = (serviceA.text + serviceC.text).match(/HMSG /g) ?? [];
          // Trace-only: no service got it; then both did, whether traced or not.
          expect(got).toHaveLength(only ? 0 : 2);
        }
        // Untraced past an import without allow_trace, the trace headers arrive disabled.
        const header = allowTrace ? 'Nats-Trace-Dest' : 'Xats-Trace-Dest';
        expect(serviceA.text).toContain(`${header}: my.trace.subj\r\n`);
      },
    );

    it.each([false, true])(
      'records each stream export a subscription is reached through, with allow_trace %s (TestMsgTraceStreamExport)',
      async (allowTrace) => {
        const server = await start({
          accounts: {
            A: { users: [{ user: 'a', pass: 'pwd' }], exports: [{ stream: 'info.*.*.>' }] },
            B: {
              users: [{ user: 'b', pass: 'pwd' }],
              imports: [
                {
                  stream: { account: 'A', subject: 'info.*.*.>' },
                  to: 'B.info.$2.$1.>',
                  allowTrace,
                },
              ],
            },
            C: {
              users: [{ user: 'c', pass: 'pwd' }],
              imports: [
                {
                  stream: { account: 'A', subject: 'info.*.*.>' },
                  to: 'C.info.$1.$2.>',
                  allowTrace,
                },
              ],
            },
          },
        });
        const tracer = await client(server, { user: 'a', pass: 'pwd', name: 'Tracer' });
        const next = await traceEvents(tracer);
        const sub1 = await subscriber(
          server,
          { user: 'b', pass: 'pwd', name: 'sub1' },
          'SUB B.info.*.*.> 1\r\n',
        );
        const sub2 = await subscriber(
          server,
          { user: 'c', pass: 'pwd', name: 'sub2' },
          'SUB C.info.> my_queue 1\r\n',
        );
        for (const only of [true, false]) {
          await tracer.send(hpub('info.11.22.bar', traceTo(only), 'hello'));
          const event = await next();
          expect(event.events[0]).toMatchObject({ type: 'in', acc: 'A', subj: 'info.11.22.bar' });
          const exports = ofType(event, 'se').map(({ acc, to }) => ({ acc, to }));
          expect(exports).toEqual(
            expect.arrayContaining([
              { acc: 'B', to: 'B.info.22.11.bar' },
              { acc: 'C', to: 'C.info.11.22.bar' },
            ]),
          );
          expect(exports).toHaveLength(2);
          const egress = ofType(event, 'eg').map(({ acc, name, sub, queue }) => ({
            acc,
            name,
            sub,
            queue,
          }));
          expect(egress).toEqual(
            allowTrace
              ? expect.arrayContaining([
                  { acc: 'B', name: 'sub1', sub: 'info.*.*.>', queue: undefined },
                  { acc: 'C', name: 'sub2', sub: 'info.*.*.>', queue: 'my_queue' },
                ])
              : [],
          );
        }
        await sub1.sync();
        await sub2.sync();
        expect(sub1.text.match(/HMSG B\.info\.22\.11\.bar /g)).toHaveLength(1);
        expect(sub2.text.match(/HMSG C\.info\.11\.22\.bar /g)).toHaveLength(1);
      },
    );
  });

  describe('JetStream (TestMsgTraceJetStream)', () => {
    let apiSid = 100;
    /** Sends a JetStream API request and returns the JSON answer. */
    async function api(
      raw: RawClient,
      subject: string,
      body: object,
    ): Promise<Record<string, unknown>> {
      const sid = ++apiSid;
      const inbox = `_INBOX.api.${sid}`;
      await raw.send(`SUB ${inbox} ${sid}\r\n`);
      const from = raw.text.length;
      const json = JSON.stringify(body);
      await raw.send(`PUB ${subject} ${inbox} ${Buffer.byteLength(json)}\r\n${json}\r\n`);
      return JSON.parse(await raw.messageTo(inbox, from)) as Record<string, unknown>;
    }
    const messages = async (raw: RawClient, stream: string) =>
      ((await api(raw, `$JS.API.STREAM.INFO.${stream}`, {})).state as { messages: number })
        .messages;

    it('adds the stream, the stored subject and checks; trace-only stores nothing', async () => {
      const server = await start({ jetstream: true });
      const tracer = await client(server, { name: 'Tracer' });
      const next = await traceEvents(tracer);
      await api(tracer, '$JS.API.STREAM.CREATE.TEST', {
        name: 'TEST',
        subjects: ['foo'],
        storage: 'memory',
        allow_rollup_hdrs: true,
        subject_transform: { src: 'foo', dest: 'bar' },
      });
      for (const only of [true, false]) {
        await tracer.send(hpub('foo', traceTo(only), 'x'.repeat(50)));
        const event = await next();
        expect(event.events[0]).toMatchObject({ type: 'in', name: 'Tracer', subj: 'foo' });
        expect(ofType(event, 'eg')).toEqual([]);
        expect(ofType(event, 'js')).toEqual([
          { type: 'js', ts: expect.any(String), stream: 'TEST', subject: 'bar' },
        ]);
        expect(await messages(tracer, 'TEST')).toBe(only ? 0 : 1);
      }
      // The stored copy's trace header is disabled, so a consumer's delivery starts no trace.
      const stored = await api(tracer, '$JS.API.STREAM.MSG.GET.TEST', { seq: 1 });
      const hdrs = Buffer.from((stored.message as { hdrs: string }).hdrs, 'base64').toString();
      expect(hdrs).toContain('Xats-Trace-Dest: my.trace.subj\r\n');

      // Trace-only with a header that fails a check: the js event has the error, no subject.
      await tracer.send(
        hpub('foo', { ...traceTo(true), 'Nats-Expected-Stream': 'WRONG' }, 'hello'),
      );
      expect(ofType(await next(), 'js')).toEqual([
        {
          type: 'js',
          ts: expect.any(String),
          stream: 'TEST',
          error: 'expected stream does not match',
        },
      ]);
      expect(await messages(tracer, 'TEST')).toBe(1);

      // Interest retention and nobody interested.
      await api(tracer, '$JS.API.STREAM.CREATE.NO_INTEREST', {
        name: 'NO_INTEREST',
        subjects: ['baz'],
        storage: 'memory',
        retention: 'interest',
      });
      await tracer.send(hpub('baz', traceTo(true), 'hello'));
      expect(ofType(await next(), 'js')).toEqual([
        {
          type: 'js',
          ts: expect.any(String),
          stream: 'NO_INTEREST',
          subject: 'baz',
          nointerest: true,
        },
      ]);
    });
  });

  describe('traceparent and the account msg_trace (TestMsgTraceTriggeredByExternalHeader)', () => {
    it('traces a sampled traceparent to the account destination, an unsampled one not', async () => {
      const server = await start({
        accounts: {
          A: { users: [{ user: 'a', pass: 'pwd' }], msgTrace: { dest: 'acc.trace.dest' } },
        },
      });
      const tracer = await client(server, { user: 'a', pass: 'pwd' });
      const next = await traceEvents(tracer, 'acc.trace.dest');
      const sub = await subscriber(server, { user: 'a', pass: 'pwd' }, 'SUB foo 1\r\n');
      const sampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await tracer.send(hpub('foo', { Traceparent: sampled }, 'hello'));
      const event = await next();
      // The header is known by its lower-case name, in the event and in what is delivered.
      expect(event.request.header).toEqual({ traceparent: [sampled] });
      expect(ofType(event, 'eg')).toHaveLength(1);
      await sub.sync();
      expect(sub.text).toContain(`traceparent: ${sampled}\r\n`);
      // Nats-Trace-Only does not apply to an external trace: delivered.
      await tracer.send(hpub('foo', { traceparent: sampled, 'Nats-Trace-Only': 'true' }, 'again'));
      await next();
      await sub.sync();
      expect(sub.text.match(/HMSG foo /g)).toHaveLength(2);

      const unsampled = sampled.replace(/-01$/, '-00');
      const before = tracer.text.length;
      await tracer.send(hpub('foo', { traceparent: unsampled }, 'not traced'));
      await sub.sync();
      await tracer.sync();
      expect(tracer.text.slice(before)).not.toContain('acc.trace.dest');
    });

    it('traces nothing for a traceparent in an account without msg_trace', async () => {
      const server = await start();
      const tracer = await client(server);
      await tracer.send('SUB > 1\r\n');
      const sampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await tracer.send(hpub('foo', { traceparent: sampled }, 'hello'));
      await tracer.sync();
      expect(tracer.text.match(/HMSG /g)).toHaveLength(1);
    });
  });

  it.each([
    ['gzip', (body: Buffer) => gunzipSync(body)],
    ['snappy', unsnap],
  ] as const)(
    'compresses the event as Accept-Encoding %s asks (TestMsgTraceWithCompression)',
    async (encoding, decode) => {
      const server = await start();
      const tracer = await client(server);
      await tracer.send('SUB my.trace.subj 1\r\n');
      await tracer.sync();
      const from = tracer.text.length;
      await tracer.send(
        hpub('foo', { 'Nats-Trace-Dest': 'my.trace.subj', 'Accept-Encoding': encoding }, 'hello'),
      );
      await tracer.waitFor(/HMSG my\.trace\.subj 1 \d+ \d+\r\n/);
      const raw = Buffer.from(tracer.text.slice(from), 'latin1');
      const line = /HMSG my\.trace\.subj 1 (\d+) (\d+)\r\n/.exec(raw.toString('latin1'))!;
      const offset = line.index + line[0].length;
      await tracer.waitUntil(
        () => Buffer.from(tracer.text.slice(from), 'latin1').length >= offset + Number(line[2]),
      );
      const all = Buffer.from(tracer.text.slice(from), 'latin1');
      const headers = all.subarray(offset, offset + Number(line[1])).toString();
      expect(headers).toBe(`NATS/1.0\r\nContent-Encoding: ${encoding}\r\n\r\n`);
      const body = all.subarray(offset + Number(line[1]), offset + Number(line[2]));
      expect(JSON.parse(decode(body).toString())).toMatchObject({
        events: [{ type: 'in', subj: 'foo' }],
      });
    },
  );
});

// The same trace-only publish on both: nats-server 2.9.10 ignores the trace headers and
// delivers; ours (2.11 behaviour) only traces.
describe.each([
  { name: 'slipstream', target: ours, delivered: false, traced: true },
  { name: 'nats-server 2.9.10', target: natsServer, delivered: true, traced: false },
])('a trace-only publish on $name', ({ target, delivered, traced }) => {
  const { start: startTarget, connect } = closedAfterEach(target);
  it(`is ${delivered ? 'delivered and not traced' : 'traced and not delivered'}`, async () => {
    const server = await startTarget();
    const raw = await connect(server);
    await raw.send(
      'CONNECT {"verbose":false,"headers":true}\r\nSUB foo 1\r\nSUB my.trace.subj 2\r\n',
    );
    await raw.send(hpub('foo', traceTo(true), 'hi'));
    await raw.sync();
    await delay(100);
    await raw.sync();
    expect(raw.text.includes('HMSG foo 1 ')).toBe(delivered);
    expect(raw.text.includes('MSG my.trace.subj 2 ')).toBe(traced);
  });
});

/** Reads a snappy framed stream of uncompressed chunks (what the server writes), checking its shape. */
function unsnap(stream: Buffer): Buffer {
  expect(stream.subarray(0, 10).toString('latin1')).toBe('\xff\x06\x00\x00sNaPpY');
  const parts: Buffer[] = [];
  for (let at = 10; at < stream.length; ) {
    expect(stream[at]).toBe(0x01);
    const length = stream.readUIntLE(at + 1, 3);
    parts.push(stream.subarray(at + 8, at + 4 + length));
    at += 4 + length;
  }
  return Buffer.concat(parts);
}
