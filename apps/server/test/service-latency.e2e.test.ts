import { connect, headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// Service latency tracking, import `share` and `account_token_position` from one config file,
// run by nats-server 2.9.10 and by the slipstream-server bin alike. Latency reports are compared
// by shape (keys in order, value types, and the values that do not vary): durations, ids and
// times differ from run to run.

const config = `
accounts {
  A: {
    users: [ { user: a, password: pw } ]
    exports: [
      { service: "svc.>", latency: { sampling: 100%, subject: lat }, response_threshold: "1s" }
      { service: "own.*.q", account_token_position: 2 }
      { service: "traced.q", latency: { sampling: headers, subject: lat } }
    ]
  }
  B: {
    users: [ { user: b, password: pw } ]
    imports: [
      { service: { account: A, subject: "svc.time" }, to: time }
      { service: { account: A, subject: "svc.none" }, to: none }
      { service: { account: A, subject: "own.B.q" }, to: mine }
      { service: { account: A, subject: "traced.q" }, to: traced }
    ]
  }
  C: {
    users: [ { user: c, password: pw } ]
    imports: [ { service: { account: A, subject: "svc.time" }, to: time, share: true } ]
  }
}
`;

/** The JSON's shape: `varying` keys become their type; objects keep their key order. */
function shape(value: unknown, varying: ReadonlySet<string>, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => shape(v, varying));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => [k, shape(v, varying, k)]);
  }
  return varying.has(key) ? typeof value : value;
}

const varying = new Set([
  'id',
  'timestamp',
  'start',
  'rtt',
  'service',
  'system',
  'total',
  'server',
  'ver',
]);

const details = (acc: string, user: string, name: string) => ({
  start: 'string',
  host: '127.0.0.1',
  id: 'number',
  acc,
  user,
  name,
  lang: 'nats.js',
  ver: 'string',
  rtt: 'number',
  server: 'string',
  kind: 'Client',
  client_type: 'nats',
});

/** `shape` of an object written as one: [key, value] pairs in order. */
const pairs = (o: Record<string, unknown>): unknown =>
  Object.entries(o).map(([k, v]) => [
    k,
    v !== null && typeof v === 'object' ? pairs(v as Record<string, unknown>) : v,
  ]);

describe.each(configServers)(
  'service latency, share and account_token_position in $name',
  ({ bin }) => {
    let server: RunningNatsServer;
    let responder: NatsConnection;
    const requestInfo: string[] = [];
    const reports: Record<string, unknown>[] = [];
    const open: NatsConnection[] = [];

    const client = async (user: string, name = user) => {
      const nc = await connect({ servers: server.url, user, pass: 'pw', name, reconnect: false });
      open.push(nc);
      return nc;
    };

    beforeAll(async () => {
      server = await startNatsServer({ bin, config });
      responder = await client('a', 'responder');
      responder.subscribe('svc.time', {
        callback: (_e, m: Msg) => {
          requestInfo.push(m.headers?.get('Nats-Request-Info') ?? '');
          m.respond('ok');
        },
      });
      responder.subscribe('own.*.q', {
        callback: (_e, m: Msg) => {
          m.respond(m.subject);
        },
      });
      responder.subscribe('traced.q', {
        callback: (_e, m: Msg) => {
          m.respond('ok');
        },
      });
      responder.subscribe('lat', { callback: (_e, m: Msg) => void reports.push(m.json()) });
      await responder.flush();
    });
    afterAll(async () => {
      await Promise.all(open.map((nc) => nc.close()));
      await server?.stop();
    });

    /** The next latency report the exporting account gets while `action` runs. */
    async function report(action: () => Promise<unknown>, waitMs = 5_000) {
      reports.length = 0;
      await action();
      const deadline = Date.now() + waitMs;
      while (reports.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return reports[0];
    }

    it('reports each answered request to the exporting account, the requester by account and RTT', async () => {
      const b = await client('b');
      const measured = await report(() => b.request('time', 'x', { timeout: 2_000 }));
      expect(shape(measured, varying)).toEqual(
        pairs({
          type: 'io.nats.server.metric.v1.service_latency',
          id: 'string',
          timestamp: 'string',
          status: 200,
          requestor: { acc: 'B', rtt: 'number' },
          responder: details('A', 'a', 'responder'),
          start: 'string',
          service: 'number',
          system: 'number',
          total: 'number',
        }),
      );
      expect(JSON.parse(requestInfo.at(-1)!)).toEqual({ acc: 'B', rtt: expect.any(Number) });
    });

    it('describes a requester whose import shares in full, in the report and the request', async () => {
      const c = await client('c', 'requester');
      const measured = (await report(() => c.request('time', 'x', { timeout: 2_000 }))) as {
        requestor: unknown;
      };
      expect(shape(measured.requestor, varying)).toEqual(pairs(details('C', 'c', 'requester')));
      expect(shape(JSON.parse(requestInfo.at(-1)!), varying)).toEqual(
        pairs(details('C', 'c', 'requester')),
      );
    });

    it('reports a request nobody serves as 503, one without reply subject as 400', async () => {
      const b = await client('b');
      const failure = async (action: () => Promise<unknown>) =>
        shape(await report(action), varying);
      const failed = (status: number, description: string) =>
        pairs({
          type: 'io.nats.server.metric.v1.service_latency',
          id: 'string',
          timestamp: 'string',
          status,
          description,
          requestor: { acc: 'B', rtt: 'number' },
          start: 'string',
          service: 'number',
          system: 'number',
          total: 'number',
        });
      expect(
        await failure(async () => {
          b.publish('none', 'x', { reply: 'inbox.1' });
          await b.flush();
        }),
      ).toEqual(failed(503, 'Service Unavailable'));
      expect(
        await failure(async () => {
          b.publish('time', 'x');
          await b.flush();
        }),
      ).toEqual(failed(400, 'Bad Request'));
    });

    it('reports 408 when the requester stops listening, 504 when no answer comes in time', async () => {
      const b = await client('b');
      responder.subscribe('svc.none', { max: 2, callback: () => {} });
      await responder.flush();
      const status = async (action: () => Promise<unknown>) =>
        ((await report(action)) as { status: number; description: string } | undefined)
          ?.description;
      expect(
        await status(async () => {
          const inbox = b.subscribe('inbox.2');
          b.publish('none', 'x', { reply: 'inbox.2' });
          await b.flush();
          inbox.unsubscribe();
          await b.flush();
        }),
      ).toBe('Request Timeout');
      const inbox = b.subscribe('inbox.3');
      // The 1 s threshold is checked every threshold (nats-server) or second (ours).
      expect(
        await status(async () => {
          b.publish('none', 'x', { reply: 'inbox.3' });
          await b.flush();
        }),
      ).toBe('Service Timeout');
      inbox.unsubscribe();
    });

    it('measures the requests whose trace headers ask, under sampling: headers', async () => {
      const b = await client('b');
      /** The trace header of the report on a request with these headers; undefined: none. */
      const traced = async (entries: [string, string][], waitMs = 5_000) => {
        const h = headers();
        for (const [name, value] of entries) h.append(name, value);
        const measured = await report(
          () => b.request('traced', '', { timeout: 2_000, headers: h }),
          waitMs,
        );
        return (measured as { header?: unknown } | undefined)?.header ?? (measured && 'none');
      };
      const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      expect(
        await traced([
          ['traceparent', parent],
          ['tracestate', 'k=v'],
          ['other', 'x'],
        ]),
      ).toEqual({
        Traceparent: [parent],
        Tracestate: ['k=v'],
      });
      expect(
        await traced([
          ['X-B3-Sampled', '1'],
          ['X-B3-TraceId', 'abc'],
        ]),
      ).toEqual({
        'X-B3-Sampled': ['1'],
        'X-B3-Traceid': ['abc'],
      });
      const uber = '479fefe9525eddb:5adb976bfc1f95c1:479fefe9525eddb:1';
      expect(
        await traced([
          ['uber-trace-id', uber],
          ['uberctx-user', 'u'],
        ]),
      ).toEqual({
        'Uber-Trace-Id': [uber],
        'Uberctx-User': ['u'],
      });
      expect(await traced([['B3', '80f198ee56343ba8-e457b5a2e4d86bd1-1']])).toEqual({
        B3: ['80f198ee56343ba8-e457b5a2e4d86bd1-1'],
      });
      // Not asked: a traceparent without the sampled flag, or no trace header at all.
      expect(await traced([['traceparent', parent.replace(/01$/, '00')]], 500)).toBeUndefined();
      expect(await traced([], 500)).toBeUndefined();
    });

    it('lets an account import an account_token_position export under its own name only', async () => {
      const b = await client('b');
      expect((await b.request('mine', '', { timeout: 2_000 })).string()).toBe('own.B.q');
    });
  },
);

describe.each(configServers)('$name refuses to start with', ({ bin }) => {
  const exporting = (exports: string, imports = '') => `
accounts {
  A: { exports: [ ${exports} ] }
  B: { imports: [ ${imports} ] }
}
`;
  it.each([
    ['a sampling of 0%', exporting('{ service: s, latency: { sampling: 0, subject: lat } }')],
    [
      'a sampling over 100%',
      exporting('{ service: s, latency: { sampling: "101%", subject: lat } }'),
    ],
    ['latency on a stream export', exporting('{ stream: s, latency: lat }')],
    ['a latency subject the account serves', exporting('{ service: "s.>", latency: "s.lat" }')],
    ['latency on a stream service', exporting('{ service: s, latency: lat, response: stream }')],
    [
      'an account token position on no *',
      exporting('{ service: "s.*", account_token_position: 1 }'),
    ],
    [
      'an import of another account name at the token position',
      exporting(
        '{ service: "s.*", account_token_position: 2 }',
        '{ service: { account: A, subject: "s.C" } }',
      ),
    ],
  ])('%s', async (_what, config) => {
    await expect(startNatsServer({ bin, config })).rejects.toThrow(/exited before/);
  });
});
