import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsEventSchemaForType } from '@slipstream/jsapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, startServer } from '../src/index.js';
import { Advisories } from '../src/jetstream/advisories.js';
import { internalClientOf } from '../src/server.js';
import {
  comparable,
  JsProbe,
  type JsTarget,
  SERVER_NAME,
  startOurJs,
  startReferenceJs,
} from './js-probe.js';

const ORDERS = { name: 'ORDERS', subjects: ['orders.*'] };
interface Received {
  subject: string;
  event: { type: string; id: string; timestamp: string; [field: string]: unknown };
}

/**
 * The same API calls on a server; returns, step by step, the events a `$JS.EVENT.>` subscriber
 * got. After each step a marker request is audited: its audit closes the step, since events go
 * out in order (within a step nats-server may send an advisory before or after the audit).
 */
async function runScenario(target: JsTarget): Promise<Received[][]> {
  const watcher = await JsProbe.connect(target.port);
  await watcher.subscribe('$JS.EVENT.>');
  const api = await JsProbe.connect(target.port);
  const steps: Array<() => Promise<unknown>> = [
    () => api.request('$JS.API.INFO'),
    () => api.request('$JS.API.STREAM.CREATE.ORDERS', ORDERS),
    // The same config again: answered, audited, but nothing was created.
    () => api.request('$JS.API.STREAM.CREATE.ORDERS', ORDERS),
    () => api.request('$JS.API.STREAM.UPDATE.ORDERS', { ...ORDERS, max_msgs: 10 }),
    () => api.request('$JS.API.STREAM.INFO.NOPE'),
    // Without a reply subject nobody is answered, but the request is still audited.
    () => api.publish('$JS.API.STREAM.NAMES'),
    () => api.request('$JS.API.STREAM.DELETE.ORDERS'),
  ];
  const events: Received[][] = [];
  let seen = 0;
  for (const [index, step] of steps.entries()) {
    await step();
    const marker = `marker.${index}`;
    await api.request('$JS.API.STREAM.NAMES', { subject: marker });
    await watcher.client.waitFor(marker);
    const received = watcher.messages();
    events.push(
      received.slice(seen, -1).map((m) => ({ subject: m.subject, event: JSON.parse(m.data) })),
    );
    seen = received.length;
  }
  watcher.close();
  api.close();
  return events;
}

describe('JetStream advisories match nats-server 2.9.10', () => {
  let ours: Received[][];
  let reference: Received[][];

  beforeAll(async () => {
    const [mine, theirs] = await Promise.all([startOurJs(), startReferenceJs()]);
    try {
      [ours, reference] = await Promise.all([runScenario(mine), runScenario(theirs)]);
    } finally {
      await Promise.all([mine.stop(), theirs.stop()]);
    }
  });

  it('publishes the same events on the same subjects for each request', () => {
    const subjectsAndTypes = (steps: Received[][]) =>
      steps.map((events) => events.map(({ subject, event }) => `${subject} ${event.type}`).sort());
    expect(subjectsAndTypes(ours)).toEqual(subjectsAndTypes(reference));
    expect(subjectsAndTypes(ours)[1]).toContain(
      '$JS.EVENT.ADVISORY.STREAM.CREATED.ORDERS io.nats.jetstream.advisory.v1.stream_action',
    );
  });

  it('with the same payloads, ids and times aside', () => {
    // nats-server may deliver an advisory before or after the audit of the same request.
    const payloads = (steps: Received[][]) =>
      steps.map((events) =>
        events
          .map(({ subject, event }) =>
            JSON.stringify({ subject, ...(comparable(event) as object) }),
          )
          .sort(),
      );
    expect(payloads(ours)).toEqual(payloads(reference));
  });

  it('every event passes its jsapi schema, with a fresh nuid and a nanosecond timestamp', () => {
    const ids = new Set<string>();
    const events = ours.flat();
    for (const { event } of events) {
      const schema = jsEventSchemaForType(event.type);
      expect(schema, event.type).toBeDefined();
      expect(() => schema!.parse(event)).not.toThrow();
      expect(event.id).toMatch(/^[0-9A-Za-z]{22}$/);
      expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
      ids.add(event.id);
    }
    expect(ids.size).toBe(events.length);
  });

  it('audits name the server and the requesting account', () => {
    const audit = ours[0]![0]!.event;
    expect(audit.server).toBe(SERVER_NAME);
    expect(audit.client).toEqual({ acc: '$G', server: SERVER_NAME });
  });
});

describe('with a JetStream domain, as nats-server 2.9.10', () => {
  /** Creates a stream through the domain's API; returns the events a watcher got. */
  async function createInDomain(target: JsTarget): Promise<Received[]> {
    const watcher = await JsProbe.connect(target.port);
    await watcher.subscribe('$JS.EVENT.>');
    const api = await JsProbe.connect(target.port);
    await api.request('$JS.hub.API.STREAM.CREATE.ORDERS', ORDERS);
    await api.request('$JS.API.STREAM.NAMES', { subject: 'marker' });
    await watcher.client.waitFor('marker');
    watcher.close();
    api.close();
    return watcher
      .messages()
      .slice(0, -1)
      .map((m) => ({ subject: m.subject, event: JSON.parse(m.data) }));
  }

  it('every advisory names the domain, and audits show the request on $JS.API', async () => {
    const [mine, theirs] = await Promise.all([
      startOurJs({ domain: 'hub' }),
      startReferenceJs({ domain: 'hub' }),
    ]);
    try {
      const [a, b] = await Promise.all([createInDomain(mine), createInDomain(theirs)]);
      const payloads = (events: Received[]) =>
        events
          .map(({ subject, event }) =>
            JSON.stringify({ subject, ...(comparable(event) as object) }),
          )
          .sort();
      expect(payloads(a)).toEqual(payloads(b));
      expect(a.map(({ event }) => event.domain)).toEqual(['hub', 'hub']);
    } finally {
      await Promise.all([mine.stop(), theirs.stop()]);
    }
  });
});

describe('advisories are sent only when someone listens', () => {
  it('a subscriber to stream advisories alone gets no audits', async () => {
    const server = await startOurJs();
    try {
      const streamsOnly = await JsProbe.connect(server.port);
      await streamsOnly.subscribe('$JS.EVENT.ADVISORY.STREAM.>');
      const api = await JsProbe.connect(server.port);
      await api.request('$JS.API.STREAM.CREATE.ORDERS', ORDERS);
      await streamsOnly.client.waitUntil(() => streamsOnly.messages().length >= 1);
      await api.request('$JS.API.STREAM.DELETE.ORDERS');
      await streamsOnly.client.waitUntil(() => streamsOnly.messages().length >= 2);
      await streamsOnly.client.sync();
      expect(streamsOnly.messages().map((m) => m.subject)).toEqual([
        '$JS.EVENT.ADVISORY.STREAM.CREATED.ORDERS',
        '$JS.EVENT.ADVISORY.STREAM.DELETED.ORDERS',
      ]);
      streamsOnly.close();
      api.close();
    } finally {
      await server.stop();
    }
  });

  it('hasInterest follows subscriptions, wildcards and queue groups', async () => {
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    try {
      const client = internalClientOf(server);
      expect(client.hasInterest('$JS.EVENT.ADVISORY.API')).toBe(false);
      const plain = client.subscribe('$JS.EVENT.>', () => {});
      expect(client.hasInterest('$JS.EVENT.ADVISORY.API')).toBe(true);
      client.unsubscribe(plain);
      expect(client.hasInterest('$JS.EVENT.ADVISORY.API')).toBe(false);
      const grouped = client.subscribe('$JS.EVENT.ADVISORY.*', () => {}, 'q');
      expect(client.hasInterest('$JS.EVENT.ADVISORY.API')).toBe(true);
      expect(client.hasInterest('$JS.EVENT.ADVISORY.API.LIMIT_REACHED')).toBe(false);
      client.unsubscribe(grouped);
    } finally {
      await server.close();
    }
  });
});

describe('snapshot and restore advisories', () => {
  const fixtures = join(import.meta.dirname, '../../jsapi/test/fixtures/events');
  /** The recorded nats-server 2.9.10 event of a type, as subject and payload. */
  const recorded = (type: string) => {
    const file = readdirSync(fixtures).find((name) => name.startsWith(`advisory.v1.${type}-`))!;
    const { subject, data } = JSON.parse(readFileSync(join(fixtures, file), 'utf8'));
    return { subject, event: JSON.parse(data) };
  };
  const keys = (event: object) => Object.keys(event).sort();
  /** An RFC 3339 time with nanoseconds as nanoseconds since the epoch. */
  const nanos = (time: string) => {
    const [whole, fraction = ''] = time.slice(0, -1).split('.');
    return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
  };

  let server: Awaited<ReturnType<typeof startServer>>;
  let probe: JsProbe;
  let advisories: Advisories;

  beforeAll(async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    probe = await JsProbe.connect(server.port);
    await probe.subscribe('$JS.EVENT.ADVISORY.STREAM.>');
    advisories = new Advisories(internalClientOf(server), 'fixtures', undefined, '$G');
  });
  afterAll(async () => {
    probe.close();
    await server.close();
  });

  it('are published on nats-server subjects with its recorded fields', async () => {
    const snapshotCreate = recorded('snapshot_create');
    const snapshotComplete = recorded('snapshot_complete');
    const restoreCreate = recorded('restore_create');
    const restoreComplete = recorded('restore_complete');
    const span = ({ event }: { event: { start: string; end: string } }) =>
      [nanos(event.start), nanos(event.end)] as const;
    advisories.snapshotCreate('$G', 'ORDERS', snapshotCreate.event.state);
    advisories.snapshotComplete('$G', 'ORDERS', ...span(snapshotComplete));
    advisories.restoreCreate('$G', 'ORDERS');
    advisories.restoreComplete('$G', 'ORDERS', ...span(restoreComplete), 2882);
    await probe.client.waitUntil(() => probe.messages().length >= 4);
    const expectations = [snapshotCreate, snapshotComplete, restoreCreate, restoreComplete];
    for (const [index, message] of probe.messages().entries()) {
      const expected = expectations[index]!;
      const event = JSON.parse(message.data);
      expect(message.subject).toBe(expected.subject);
      expect(keys(event)).toEqual(keys(expected.event));
      // The recording's client had a round-trip time, which `comparable` drops.
      expect(comparable(event)).toEqual(comparable(expected.event));
      expect(() => jsEventSchemaForType(event.type)!.parse(event)).not.toThrow();
    }
  });
});
