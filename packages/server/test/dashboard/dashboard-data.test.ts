import { AckPolicy } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DashboardServer,
  jetstreamManager,
  startDashboardServer,
} from './dashboard-server.js';

// Stream names may hold neither '>' nor '/' nor spaces: what HTML they can carry is an entity.
const HOSTILE_STREAM = `<i&amp;"x'`;
const HOSTILE_SUBJECT = 'evil.<img/src=x/onerror=alert(1)>';
const ACTION = { method: 'POST', headers: { 'x-slipstream-dashboard': '1' } };

interface StoredMessage {
  subject: string;
  seq: number;
  hdrs?: string;
  data?: string;
}

const text = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');
const q = (params: Record<string, string | number>) =>
  new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();

describe('the dashboard data endpoints behind monitoringAuth (read-only by default)', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer();
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    await jsm.streams.add({ name: HOSTILE_STREAM, subjects: ['evil.>'] });
    for (let i = 1; i <= 30; i++) await s.publish(`orders.${i % 2 ? 'odd' : 'even'}`, `{"n":${i}}`);
    await s.publish(HOSTILE_SUBJECT, '<script>alert(2)</script>', { 'X-Tag': '<b>tag</b>' });
    await jsm.consumers.add('ORDERS', { durable_name: 'AUDIT', ack_policy: AckPolicy.Explicit });
    await jsm.streams.add({
      name: 'KV_cfg',
      subjects: ['$KV.cfg.>'],
      max_msgs_per_subject: 5,
      allow_rollup_hdrs: true,
      deny_delete: true,
    });
    await s.publish('$KV.cfg.color', 'red');
    await s.publish('$KV.cfg.color', 'blue');
    await s.publish('$KV.cfg.size', 'xl');
    const store = await new Objm(s.nc).create('files');
    await store.putBlob({ name: 'hello.txt' }, new TextEncoder().encode('hello, object'));
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('serves the page at / with a policy that runs only its own script', async () => {
    const response = await s.get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await response.text()).toContain('/dashboard/app.js');
    const script = await s.get('/dashboard/app.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('names the JetStream accounts and says actions are off', async () => {
    expect(await s.json('/dashboard/api/config')).toEqual({
      actions: false,
      contents: true,
      jetstream: ['$G'],
      accounts: false,
    });
  });

  it('lists the streams with their state, HTML in a name kept as the name', async () => {
    const body = await s.json<{
      streams: { config: { name: string }; state: { messages: number } }[];
    }>('/dashboard/api/streams');
    const byName = new Map(body.streams.map((info) => [info.config.name, info]));
    expect(byName.get('ORDERS')?.state.messages).toBe(30);
    expect(byName.get(HOSTILE_STREAM)?.state.messages).toBe(1);
    expect(byName.has('KV_cfg')).toBe(true);
  });

  it('gives a stream with its consumers', async () => {
    const body = await s.json<{
      info: { state: { last_seq: number } };
      consumers: { name: string }[];
    }>('/dashboard/api/stream?stream=ORDERS');
    expect(body.info.state.last_seq).toBe(30);
    expect(body.consumers.map((c) => c.name)).toEqual(['AUDIT']);
  });

  it('pages through messages by sequence and by subject', async () => {
    const first = await s.json<{ messages: StoredMessage[]; next: number }>(
      `/dashboard/api/messages?${q({ stream: 'ORDERS', seq: 1, limit: 10 })}`,
    );
    expect(first.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.next).toBe(11);
    expect(text(first.messages[0]?.data)).toBe('{"n":1}');
    const even = await s.json<{ messages: StoredMessage[] }>(
      `/dashboard/api/messages?${q({ stream: 'ORDERS', seq: 20, subject: 'orders.even' })}`,
    );
    expect(even.messages.map((m) => m.seq)).toEqual([20, 22, 24, 26, 28, 30]);
    expect(even.messages.every((m) => m.subject === 'orders.even')).toBe(true);
    const past = await s.json<{ messages: StoredMessage[] }>(
      `/dashboard/api/messages?${q({ stream: 'ORDERS', seq: 31 })}`,
    );
    expect(past.messages).toEqual([]);
    const hostile = await s.json<{ messages: StoredMessage[] }>(
      `/dashboard/api/messages?${q({ stream: HOSTILE_STREAM })}`,
    );
    expect(hostile.messages[0]?.subject).toBe(HOSTILE_SUBJECT);
    expect(text(hostile.messages[0]?.hdrs)).toContain('X-Tag: <b>tag</b>');
  });

  it('refuses bad names and numbers with 400 and a missing stream with 404', async () => {
    const bad = await s.get(`/dashboard/api/messages?${q({ stream: 'a.b' })}`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain(
      'stream name can not contain',
    );
    expect(
      (await s.get(`/dashboard/api/messages?${q({ stream: 'ORDERS', limit: 'many' })}`)).status,
    ).toBe(400);
    expect(
      (await s.get(`/dashboard/api/messages?${q({ stream: 'ORDERS', subject: 'a..b' })}`)).status,
    ).toBe(400);
    const missing = await s.get('/dashboard/api/stream?stream=NOPE');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe('stream not found');
    expect((await s.get('/dashboard/api/streams?account=NOBODY')).status).toBe(404);
    expect((await s.get('/dashboard/api/nothing')).status).toBe(404);
  });

  it('lists KV keys with their latest value and a key history', async () => {
    const keys = await s.json<{ keys: { key: string; history: number; last: StoredMessage }[] }>(
      '/dashboard/api/kv-keys?bucket=cfg',
    );
    expect(keys.keys.map((k) => [k.key, k.history, text(k.last.data)])).toEqual([
      ['color', 2, 'blue'],
      ['size', 1, 'xl'],
    ]);
    const history = await s.json<{ entries: StoredMessage[] }>(
      '/dashboard/api/kv-history?bucket=cfg&key=color',
    );
    expect(history.entries.map((m) => text(m.data))).toEqual(['red', 'blue']);
    expect((await s.get('/dashboard/api/kv-history?bucket=cfg&key=*')).status).toBe(400);
  });

  it('lists objects with size and digest and downloads one', async () => {
    const body = await s.json<{ objects: { name: string; size: number; digest: string }[] }>(
      '/dashboard/api/objects?bucket=files',
    );
    expect(body.objects.map((o) => [o.name, o.size])).toEqual([['hello.txt', 13]]);
    expect(body.objects[0]?.digest).toMatch(/^SHA-256=/);
    const download = await s.get('/dashboard/api/object?bucket=files&name=hello.txt');
    expect(download.headers.get('content-disposition')).toContain('hello.txt');
    expect(await download.text()).toBe('hello, object');
    expect((await s.get('/dashboard/api/object?bucket=files&name=nope')).status).toBe(404);
  });

  it('refuses every action while actions are disabled, and changes nothing', async () => {
    const response = await s.get('/dashboard/api/actions/purge-stream?stream=ORDERS', ACTION);
    expect(response.status).toBe(403);
    const body = await s.json<{ info: { state: { messages: number } } }>(
      '/dashboard/api/stream?stream=ORDERS',
    );
    expect(body.info.state.messages).toBe(30);
  });

  it('feeds /varz and each stream state as server-sent events', async () => {
    const controller = new AbortController();
    const response = await s.get('/dashboard/events', { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('\n\n'))
      received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const [event, data] = received.split('\n');
    expect(event).toBe('event: tick');
    const tick = JSON.parse(data!.slice('data: '.length));
    expect(tick.varz.server_id).toMatch(/^N/);
    expect(tick.jetstream.$G.ORDERS.last_seq).toBe(30);
  });
});

describe('the dashboard without monitoringAuth: what /jsz shows, no contents', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer({ monitoringAuth: undefined });
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'OPEN', subjects: ['open.>'] });
    await s.publish('open.x', 'secret payload');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('gives streams and consumers but refuses message, KV and object contents with 403', async () => {
    const config = await s.json<{ contents: boolean }>('/dashboard/api/config');
    expect(config.contents).toBe(false);
    expect((await s.get('/dashboard/api/streams')).status).toBe(200);
    expect((await s.get('/dashboard/api/stream?stream=OPEN')).status).toBe(200);
    for (const path of [
      'messages?stream=OPEN',
      'kv-keys?bucket=b',
      'kv-history?bucket=b&key=k',
      'objects?bucket=b',
      'object?bucket=b&name=n',
    ]) {
      const response = await s.get(`/dashboard/api/${path}`);
      expect(response.status, path).toBe(403);
      expect(((await response.json()) as { error: string }).error, path).toContain(
        'only when the monitoring port has basic auth',
      );
    }
  });
});

describe('dashboard actions, when the dashboard.actions option enables them', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer({ dashboard: { actions: true } });
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'JOBS', subjects: ['jobs.>'] });
    await jsm.consumers.add('JOBS', { durable_name: 'W', ack_policy: AckPolicy.Explicit });
    await jsm.streams.add({
      name: 'KV_b',
      subjects: ['$KV.b.>'],
      allow_rollup_hdrs: true,
      deny_delete: true,
    });
    for (let i = 0; i < 3; i++) await s.publish('jobs.x', `job ${i}`);
    await s.publish('$KV.b.k', 'v');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('needs a POST with the dashboard header (a cross-site form cannot send one)', async () => {
    expect((await s.get('/dashboard/api/actions/purge-stream?stream=JOBS')).status).toBe(400);
    const noHeader = await s.get('/dashboard/api/actions/purge-stream?stream=JOBS', {
      method: 'POST',
    });
    expect(noHeader.status).toBe(400);
    expect((await s.get('/dashboard/api/actions/explode?stream=JOBS', ACTION)).status).toBe(404);
  });

  it('purges a stream, deletes a consumer and a KV key', async () => {
    expect((await s.get('/dashboard/api/actions/purge-stream?stream=JOBS', ACTION)).status).toBe(
      200,
    );
    expect(
      (await s.get('/dashboard/api/actions/delete-consumer?stream=JOBS&consumer=W', ACTION)).status,
    ).toBe(200);
    const stream = await s.json<{ info: { state: { messages: number } }; consumers: unknown[] }>(
      '/dashboard/api/stream?stream=JOBS',
    );
    expect(stream.info.state.messages).toBe(0);
    expect(stream.consumers).toEqual([]);
    expect((await s.get('/dashboard/api/actions/delete-key?bucket=b&key=k', ACTION)).status).toBe(
      200,
    );
    const history = await s.json<{ entries: StoredMessage[] }>(
      '/dashboard/api/kv-history?bucket=b&key=k',
    );
    expect(text(history.entries.at(-1)?.hdrs)).toContain('KV-Operation: DEL');
    const missing = await s.get(
      '/dashboard/api/actions/delete-consumer?stream=JOBS&consumer=W',
      ACTION,
    );
    expect(missing.status).toBe(404);
  });
});

describe('the dashboard sees an account through its own API only', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer(
      {
        accounts: {
          A: { users: [{ user: 'a', pass: 'a' }], jetstream: true },
          B: { users: [{ user: 'b', pass: 'b' }], jetstream: true },
          C: { users: [{ user: 'c', pass: 'c' }] },
        },
      },
      { user: 'a', pass: 'a' },
    );
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'ONLY_A', subjects: ['a.>'] });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("shows A's stream under A, not under B, and nothing for an account without JetStream", async () => {
    const config = await s.json<{ jetstream: string[]; accounts: boolean }>(
      '/dashboard/api/config',
    );
    expect(config.jetstream.sort()).toEqual(['A', 'B']);
    expect(config.accounts).toBe(true);
    const a = await s.json<{ streams: { config: { name: string } }[] }>(
      '/dashboard/api/streams?account=A',
    );
    expect(a.streams.map((info) => info.config.name)).toEqual(['ONLY_A']);
    const b = await s.json<{ streams: unknown[] }>('/dashboard/api/streams?account=B');
    expect(b.streams).toEqual([]);
    expect((await s.get('/dashboard/api/stream?account=B&stream=ONLY_A')).status).toBe(404);
    expect((await s.get('/dashboard/api/streams?account=C')).status).toBe(404);
  });
});
