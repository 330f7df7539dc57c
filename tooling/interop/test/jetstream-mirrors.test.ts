/**
 * Mirrors and sources within one server, side by side on nats-server 2.9.10 and
 * slipstream-server: the same actions must leave the same messages in the mirror (same
 * sequences, subjects, payloads and times as the origin) and in the sourced stream (appended,
 * each with `Nats-Stream-Source: <origin> <seq>`), keep following the origin, and survive a
 * restart without copying anything twice.
 */
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import {
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterAll, describe, expect, it } from 'vitest';

interface Copy {
  seq: number;
  subject: string;
  data: string;
  time?: string;
  source?: string;
}

async function api(nc: NatsConnection, subject: string, body: unknown = '') {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const reply = JSON.parse((await nc.request(subject, text, { timeout: 5_000 })).string());
  if (reply.error) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
  return reply;
}

async function messagesOf(nc: NatsConnection, stream: string): Promise<Copy[]> {
  const { state } = await api(nc, `$JS.API.STREAM.INFO.${stream}`);
  const out: Copy[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const reply = JSON.parse(
      (await nc.request(`$JS.API.STREAM.MSG.GET.${stream}`, JSON.stringify({ seq }))).string(),
    );
    if (reply.error) continue;
    const m = reply.message;
    const hdrs = m.hdrs ? Buffer.from(m.hdrs, 'base64').toString() : '';
    const source = /Nats-Stream-Source: ([^\r]*)/.exec(hdrs)?.[1];
    out.push({
      seq: m.seq,
      subject: m.subject,
      data: Buffer.from(m.data ?? '', 'base64').toString(),
      time: m.time,
      ...(source ? { source } : {}),
    });
  }
  return out;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const kinds = [
  { name: 'nats-server 2.9.10', start: () => startNatsServer({ jetstream: true }) },
  { name: 'slipstream-server', start: () => startSlipstreamServer({ jetstream: true }) },
];

const results: Record<string, unknown> = {};

describe.each(kinds)('mirrors and sources on $name', ({ name, start }) => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('mirrors, sources, follows and restarts', async () => {
    server = await start();
    nc = await connect({ servers: server.url });
    // The mirror exists before its origin: it starts following once the origin appears.
    await api(nc, '$JS.API.STREAM.CREATE.MIRROR', { name: 'MIRROR', mirror: { name: 'ORIGIN' } });
    await api(nc, '$JS.API.STREAM.CREATE.ORIGIN', {
      name: 'ORIGIN',
      subjects: ['o.>'],
      allow_direct: true,
    });
    await api(nc, '$JS.API.STREAM.CREATE.OTHER', {
      name: 'OTHER',
      subjects: ['x.>'],
      retention: 'interest',
    });
    const h = headers();
    h.set('Trace', 'kept');
    for (const [subject, data] of [
      ['o.a', '1'],
      ['o.b', '2'],
      ['o.a', '3'],
      ['o.c', '4'],
    ]) {
      await nc.request(subject!, data!, { headers: h, timeout: 5_000 });
    }
    await api(nc, '$JS.API.STREAM.MSG.DELETE.ORIGIN', { seq: 2 });
    await api(nc, '$JS.API.STREAM.CREATE.SOURCED', {
      name: 'SOURCED',
      sources: [{ name: 'ORIGIN', filter_subject: 'o.a' }, { name: 'OTHER' }],
    });
    await api(nc, '$JS.API.STREAM.CREATE.LATE', {
      name: 'LATE',
      mirror: { name: 'ORIGIN', opt_start_seq: 3 },
    });
    // Published once the followers exist: an interest stream keeps it for its source.
    // nats-server sets a source up by creating a consumer on the origin, asynchronously, and
    // reports the source active (not -1) only when that consumer is in place; before, an
    // interest stream has no interest and drops the message (a loaded CI run saw it dropped).
    await until(
      () => api(nc, '$JS.API.STREAM.INFO.SOURCED'),
      (i) => i.sources?.length === 2 && i.sources.every((s: { active: number }) => s.active >= 0),
    );
    await nc.request('x.y', 'interest');
    await nc.request('o.a', '5');

    const origin = await until(
      () => messagesOf(nc, 'ORIGIN'),
      (m) => m.length === 4,
    );
    // A mirror keeps what it copied before its origin deleted it: one that started following
    // before the delete of 2 holds it (a loaded CI run saw nats-server 2.9.10's do so), one
    // that started after does not. Both are right; the copies compare without it.
    const undeleted = (list: Copy[]) => list.filter((m) => m.seq !== 2);
    const mirror = undeleted(
      await until(
        () => messagesOf(nc, 'MIRROR'),
        (m) => undeleted(m).length === origin.length,
      ),
    );
    expect(mirror).toEqual(origin);
    const late = await until(
      () => messagesOf(nc, 'LATE'),
      (m) => m.length === 3,
    );
    expect(late.map((m) => m.seq)).toEqual([3, 4, 5]);
    const sourced = await until(
      () => messagesOf(nc, 'SOURCED'),
      (m) => m.length === 4,
    );
    const shape = (list: Copy[]) => list.map(({ time: _, ...rest }) => rest);
    const info = await api(nc, '$JS.API.STREAM.INFO.MIRROR');
    expect(info.mirror).toMatchObject({ name: 'ORIGIN', lag: 0 });

    // A restart copies nothing twice and keeps following.
    await nc.close();
    server = await server.restart();
    nc = await connect({ servers: server.url });
    await nc.request('o.a', '6');
    const after = await until(
      () => messagesOf(nc, 'SOURCED'),
      (m) => m.length === 5,
    );
    const mirrorAfter = undeleted(
      await until(
        () => messagesOf(nc, 'MIRROR'),
        (m) => undeleted(m).length === 5,
      ),
    );
    results[name] = {
      mirror: shape(mirror),
      // How the two sources' copies interleave is a race between their feeds on either server
      // (a loaded run had nats-server 2.9.10 copy OTHER's message first and ours last), so the
      // copies compare without their sequence, and each source's own order separately.
      sourced: shape(sourced)
        .map(({ seq: _, ...copy }) => copy)
        .sort((a, b) => a.data.localeCompare(b.data)),
      sourcedOrder: ['ORIGIN', 'OTHER'].map((origin) =>
        sourced.filter((m) => m.source?.startsWith(`${origin} `)).map((m) => m.data),
      ),
      after: shape(after)
        .map((m) => m.data)
        .sort(),
      mirrorAfter: shape(mirrorAfter).map((m) => m.seq),
    };
  }, 60_000);
});

describe('mirrors and sources', () => {
  it('leave the same messages on slipstream-server as on nats-server 2.9.10', () => {
    const [nats, ours] = kinds.map((k) => results[k.name]);
    expect(nats).toBeDefined();
    expect(ours).toEqual(nats);
  });
});
