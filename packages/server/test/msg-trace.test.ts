import { afterEach, describe, expect, it } from 'vitest';
import { type NatsServer, type ServerOptions, silentLogger, startServer } from '../src/index.js';
import { RawClient } from './raw-client.js';

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
    await publisher.send(
      hpub('dummy', { 'Nats-Trace-Dest': 'my.trace.subj', 'Nats-Trace-Only': 'true' }, 'hello!'),
    );
    const lonely = await next();
    expect(lonely.server).toMatchObject({ name: server.info.server_name, ver: '2.11.0' });
    expect(lonely.request.header).toEqual({
      'Nats-Trace-Dest': ['my.trace.subj'],
      'Nats-Trace-Only': ['true'],
    });
    expect(lonely.request.msgsize).toBeGreaterThan(20);
    expect(lonely.events).toEqual([
      { type: 'in', ts: expect.any(String), kind: 0, cid: pubCid, acc: '$G', subj: 'dummy' },
    ]);

    const both = await client(server, { name: 'sub1And2' });
    await both.send('SUB bar 1\r\nSUB bar 2\r\n');
    await both.sync();
    const wildcard = await client(server);
    await wildcard.send('SUB * 3\r\n');
    await wildcard.sync();
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
    const sub1 = await client(server, { name: 'sub1' });
    await sub1.send('SUB foo bar 1\r\n');
    await sub1.sync();
    const sub2 = await client(server, { name: 'sub2' });
    await sub2.send('SUB foo bar 1\r\nSUB * baz 2\r\n');
    await sub2.sync();
    for (const only of [true, false]) {
      const headers = { 'Nats-Trace-Dest': 'my.trace.subj', 'Nats-Trace-Only': String(only) };
      await publisher.send(hpub('foo', headers, 'hello'));
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
    const trace = { 'Nats-Trace-Dest': 'my.trace.subj' };
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
    const trace = { 'Nats-Trace-Dest': 'my.trace.subj' };

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
});
