import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comparable,
  JsProbe,
  type JsSettings,
  type JsTarget,
  startOurJs,
  startReferenceJs,
} from './js-probe.js';
import { natsServer, ours, type RunningTarget } from './targets.js';

const LIMITS: JsSettings = { maxMemory: 64 * 1024 * 1024, maxFile: 256 * 1024 * 1024 };

/** Streams of both kinds, one with max_bytes (reserved), messages, and one failed request. */
async function populate(target: JsTarget): Promise<void> {
  const api = await JsProbe.connect(target.port);
  await api.request('$JS.API.STREAM.CREATE.ORDERS', {
    name: 'ORDERS',
    subjects: ['orders.*'],
    max_bytes: 4096,
  });
  await api.request('$JS.API.STREAM.CREATE.CACHE', {
    name: 'CACHE',
    subjects: ['cache.>'],
    storage: 'memory',
    max_bytes: 1024,
  });
  await api.request('$JS.API.STREAM.CREATE.LOG', { name: 'LOG', subjects: ['log'] });
  for (const subject of ['orders.a', 'orders.b', 'cache.x.y', 'log']) {
    await api.request(subject, `payload of ${subject}`);
  }
  await api.request('$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.AUDIT', {
    stream_name: 'ORDERS',
    config: { durable_name: 'AUDIT', ack_policy: 'explicit' },
  });
  await api.request('$JS.API.STREAM.INFO.MISSING');
  api.close();
}

async function get(target: { httpUrl: string | undefined }, path: string) {
  const response = await fetch(`${target.httpUrl}${path}`);
  return { status: response.status, text: await response.text() };
}

async function json(target: { httpUrl: string | undefined }, path: string) {
  const { status, text } = await get(target, path);
  expect(status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * A /jsz or /varz jetstream document as both servers can agree on it. In the config, ours also
 * says it syncs every write (nats-server 2.10's `sync_always`; 2.9.10 has no such field and
 * syncs lazily); nats-server says `compress_ok` (it can compress cluster traffic, which a
 * server without clustering has none of); store directories differ. nats-server lists streams
 * in map order, ours by name.
 */
function agreed(document: Record<string, unknown>) {
  const { sync_always, compress_ok, store_dir, ...config } = document.config as Record<
    string,
    unknown
  >;
  const details = document.account_details as Array<Record<string, unknown>> | undefined;
  return comparable({
    ...document,
    config,
    store_dir_is_set: typeof store_dir === 'string',
    ...(details && {
      account_details: details.map((account) => ({
        ...account,
        ...(account.stream_detail
          ? {
              stream_detail: (account.stream_detail as Array<{ name: string }>).sort((a, b) =>
                a.name.localeCompare(b.name),
              ),
            }
          : {}),
      })),
    }),
  });
}

describe('/jsz, /varz and /healthz with JetStream match nats-server 2.9.10', () => {
  let mine: JsTarget;
  let reference: JsTarget;

  beforeAll(async () => {
    [mine, reference] = await Promise.all([startOurJs(LIMITS), startReferenceJs(LIMITS)]);
    await Promise.all([populate(mine), populate(reference)]);
  });
  afterAll(async () => {
    await Promise.all([mine?.stop(), reference?.stop()]);
  });

  for (const path of [
    '/jsz',
    '/jsz?accounts=1',
    '/jsz?acc=$G',
    '/jsz?streams=true',
    '/jsz?accounts=1&streams=1&consumers=1&config=1',
    '/jsz?consumers=1',
    '/jsz?accounts=1&offset=1',
    '/jsz?accounts=1&limit=1',
  ]) {
    it(`${path} gives the same keys and values`, async () => {
      const [a, b] = await Promise.all([json(mine, path), json(reference, path)]);
      expect(agreed(a)).toEqual(agreed(b));
    });
  }

  it('/jsz counts what the streams hold and reserve', async () => {
    const document = await json(mine, '/jsz?accounts=1');
    expect(document).toMatchObject({
      config: { max_memory: LIMITS.maxMemory, max_storage: LIMITS.maxFile, sync_always: true },
      reserved_memory: 1024,
      reserved_storage: 4096,
      accounts: 1,
      streams: 3,
      messages: 4,
      consumers: 1,
      api: { total: 5, errors: 1 },
    });
    expect(document.memory).toBeGreaterThan(0);
    expect(document.storage).toBeGreaterThan(0);
  });

  it('/jsz?consumers=1 lists consumers, with their config only when config=1', async () => {
    const consumersOf = async (path: string) => {
      const document = (await json(mine, path)) as {
        account_details: Array<{
          stream_detail: Array<{ name: string; consumer_detail?: unknown }>;
        }>;
      };
      const orders = document.account_details[0]!.stream_detail.find((s) => s.name === 'ORDERS');
      return orders!.consumer_detail as Array<Record<string, unknown>>;
    };
    const [plain] = await consumersOf('/jsz?consumers=1');
    expect(plain).toMatchObject({ stream_name: 'ORDERS', name: 'AUDIT', num_pending: 2 });
    expect(plain).not.toHaveProperty('config');
    const [configured] = await consumersOf('/jsz?consumers=1&config=1');
    expect(configured!.config).toMatchObject({ durable_name: 'AUDIT', ack_policy: 'explicit' });
  });

  it('account reservations are written as nats-server writes unlimited: 2^64 - 1, every digit', async () => {
    const { text } = await get(mine, '/jsz?accounts=1');
    expect(text).toContain('"reserved_memory": 18446744073709551615,');
    expect(text).toContain('"reserved_storage": 18446744073709551615,');
  });

  it('/varz has the same jetstream section', async () => {
    const [a, b] = await Promise.all([json(mine, '/varz'), json(reference, '/varz')]);
    const section = (varz: Record<string, unknown>) => {
      const { config, stats } = varz.jetstream as Record<string, unknown>;
      // comparable: without what 2.9.10 lacks (the API level of 2.11).
      return { config: agreed({ config }), stats: comparable(stats) };
    };
    expect(section(a)).toEqual(section(b));
    expect((b.jetstream as { stats: unknown }).stats).toBeDefined();
  });

  for (const path of [
    '/jsz?accounts=maybe',
    '/jsz?consumers=1&streams=x&accounts=y',
    '/jsz?offset=two',
    '/jsz?leader-only=nope',
    '/healthz?js-enabled-only=bogus',
    '/healthz?js-enabled=2',
    '/healthz?js-server-only=yes',
  ]) {
    it(`${path} is refused with the same 400 text`, async () => {
      const [a, b] = await Promise.all([get(mine, path), get(reference, path)]);
      expect(a).toEqual(b);
      expect(a.status).toBe(400);
    });
  }

  for (const path of [
    '/healthz',
    '/healthz?js-enabled-only=true',
    '/healthz?js-enabled=true',
    '/healthz?js-server-only=1',
  ]) {
    it(`${path} answers the same`, async () => {
      const [a, b] = await Promise.all([get(mine, path), get(reference, path)]);
      expect(a).toEqual(b);
    });
  }
});

describe('without JetStream, /jsz, /varz and /healthz match nats-server 2.9.10', () => {
  let mine: RunningTarget;
  let reference: RunningTarget;

  beforeAll(async () => {
    [mine, reference] = await Promise.all([
      ours.start({ monitoring: true }),
      natsServer.start({ monitoring: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([mine?.stop(), reference?.stop()]);
  });

  for (const path of ['/jsz', '/jsz?accounts=1&streams=1&consumers=1&config=1']) {
    it(`${path} says disabled, with zeros`, async () => {
      const [a, b] = await Promise.all([json(mine, path), json(reference, path)]);
      expect(comparable(a)).toEqual(comparable(b));
      expect(a.disabled).toBe(true);
    });
  }

  it('/varz has an empty jetstream section', async () => {
    const [a, b] = await Promise.all([json(mine, '/varz'), json(reference, '/varz')]);
    expect(a.jetstream).toEqual(b.jetstream);
  });

  for (const path of ['/healthz?js-enabled-only=true', '/healthz?js-enabled=true']) {
    it(`${path} is healthy as on nats-server, which checks JetStream only where it is configured`, async () => {
      const [a, b] = await Promise.all([get(mine, path), get(reference, path)]);
      expect(a).toEqual(b);
      expect(a).toEqual({ status: 200, text: '{"status":"ok"}' });
    });
  }
});
