/**
 * STREAM.SNAPSHOT and STREAM.RESTORE, driven as `nats stream backup / restore` drive them (raw
 * requests: the official JavaScript JetStream manager has no snapshot API). Against
 * slipstream-server: a file and a memory stream with headers, gaps and a deleted last message
 * are snapshotted, deleted and restored, and compared message by message; bad uploads fail
 * cleanly and leave nothing behind. Beside nats-server 2.9.10: the control flow (answers,
 * errors, subjects, the end of a snapshot), not the archive, whose format is our own.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  connect,
  type Msg,
  type NatsConnection,
  headers as natsHeaders,
} from '@nats-io/transport-node';
import {
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newerFields } from './support/newer-fields.js';

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = Record<string, any>;

async function api(nc: NatsConnection, subject: string, body: unknown = ''): Promise<Json> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const reply = await nc.request(`$JS.API.${subject}`, text, { timeout: 5000 });
  return reply.json<Json>();
}

interface Snapshot {
  response: Json;
  chunks: Uint8Array[];
  /** Each chunk's reply subject, which the receiver acked. */
  ackSubjects: string[];
  /** The message that ended the transfer. */
  last: { size: number; hasHeaders: boolean };
}

/** Requests a snapshot and receives it, acking every chunk, until the empty message. */
async function snapshot(nc: NatsConnection, stream: string, request: Json = {}): Promise<Snapshot> {
  const deliver = `_INBOX.snapshot.${stream}.${Math.random().toString(36).slice(2)}`;
  const chunks: Uint8Array[] = [];
  const ackSubjects: string[] = [];
  const sub = nc.subscribe(deliver);
  await nc.flush();
  const response = await api(nc, `STREAM.SNAPSHOT.${stream}`, {
    deliver_subject: deliver,
    ...request,
  });
  if (response.error) {
    sub.unsubscribe();
    return { response, chunks, ackSubjects, last: { size: 0, hasHeaders: false } };
  }
  for await (const m of sub) {
    if (m.data.length === 0 || m.headers) {
      sub.unsubscribe();
      return {
        response,
        chunks,
        ackSubjects,
        last: { size: m.data.length, hasHeaders: !!m.headers },
      };
    }
    chunks.push(m.data);
    ackSubjects.push(m.reply!);
    m.respond();
  }
  throw new Error('snapshot subscription closed before its end');
}

/**
 * Starts a restore; with chunks, uploads them (each a request) and the empty message, unless a
 * chunk is answered with an error.
 */
async function restore(
  nc: NatsConnection,
  stream: string,
  snap: Json,
  chunks?: Uint8Array[],
): Promise<{ response: Json; chunkReplies: Json[]; final?: Json }> {
  const response = await api(nc, `STREAM.RESTORE.${stream}`, {
    config: snap.config,
    state: snap.state,
  });
  const chunkReplies: Json[] = [];
  if (!chunks || response.error) return { response, chunkReplies };
  for (const chunk of chunks) {
    const reply = await nc.request(response.deliver_subject, chunk, { timeout: 5000 });
    const answer = reply.data.length === 0 ? {} : reply.json<Json>();
    chunkReplies.push(answer);
    // A chunk answered with an error ended the restore: nothing listens any more.
    if (answer.error) return { response, chunkReplies };
  }
  const final = await nc.request(response.deliver_subject, new Uint8Array(0), { timeout: 10_000 });
  return { response, chunkReplies, final: final.json<Json>() };
}

/** Every message of the stream by STREAM.MSG.GET, missing sequences as null. */
async function messages(nc: NatsConnection, stream: string, lastSeq: number) {
  const out: unknown[] = [];
  for (let seq = 1; seq <= lastSeq; seq++) {
    const got = await api(nc, `STREAM.MSG.GET.${stream}`, { seq });
    out.push(got.error ? null : got.message);
  }
  return out;
}

/** What a stream holds: its state and each message, as the API shows them. */
async function contents(nc: NatsConnection, stream: string) {
  const info = await api(nc, `STREAM.INFO.${stream}`, { deleted_details: true });
  return { state: info.state, messages: await messages(nc, stream, info.state.last_seq) };
}

/** A stream with headers, a deleted message in the middle and a deleted last message. */
async function fill(nc: NatsConnection, stream: string, storage: 'file' | 'memory') {
  const created = await api(nc, `STREAM.CREATE.${stream}`, {
    name: stream,
    subjects: [`${stream}.>`],
    storage,
  });
  expect(created.error).toBeUndefined();
  const js = (subject: string, data: string | Uint8Array, h?: Record<string, string>) => {
    const hdrs = h && natsHeaders();
    for (const [k, v] of Object.entries(h ?? {})) hdrs!.set(k, v);
    return nc.request(subject, data, { timeout: 5000, ...(hdrs ? { headers: hdrs } : {}) });
  };
  for (let i = 1; i <= 40; i++) {
    await js(
      `${stream}.${i % 3}`,
      `message ${i}`,
      i % 2 ? { 'X-Index': String(i), 'X-Kind': 'odd' } : undefined,
    );
  }
  // A payload larger than a chunk, with every byte value.
  await js(
    `${stream}.big`,
    Uint8Array.from({ length: 5000 }, (_, i) => i % 256),
  );
  await js(`${stream}.last`, 'gone soon');
  await api(nc, `STREAM.MSG.DELETE.${stream}`, { seq: 7 });
  await api(nc, `STREAM.MSG.DELETE.${stream}`, { seq: 42 });
}

describe('snapshot and restore on slipstream-server', () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  const account = () => join(server.dir, 'js', 'jetstream', '%24G');
  const staged = () =>
    existsSync(join(account(), 'staging')) ? readdirSync(join(account(), 'staging')) : [];

  beforeAll(async () => {
    server = await startSlipstreamServer({ jetstream: true });
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  for (const storage of ['file', 'memory'] as const) {
    it(`restores a ${storage} stream message by message, sequences and consumers included`, async () => {
      const name = `S_${storage}`;
      await fill(nc, name, storage);
      const durable = await api(nc, `CONSUMER.DURABLE.CREATE.${name}.D`, {
        stream_name: name,
        config: { durable_name: 'D', ack_policy: 'explicit', deliver_policy: 'all' },
      });
      expect(durable.error).toBeUndefined();
      const before = await contents(nc, name);
      expect(before.state).toMatchObject({
        messages: 40,
        first_seq: 1,
        last_seq: 42,
        num_deleted: 2,
      });

      const snap = await snapshot(nc, name, { chunk_size: 1024 });
      expect(snap.response.error).toBeUndefined();
      expect(snap.chunks.length).toBeGreaterThan(5);
      await api(nc, `STREAM.DELETE.${name}`);
      const { response, chunkReplies, final } = await restore(nc, name, snap.response, snap.chunks);
      expect(response.deliver_subject).toMatch(
        new RegExp(`^\\$JS\\.SNAPSHOT\\.RESTORE\\.${name}\\.\\w+$`),
      );
      expect(chunkReplies.every((r) => Object.keys(r).length === 0)).toBe(true);
      expect(final).toMatchObject({
        type: 'io.nats.jetstream.api.v1.stream_create_response',
        config: { name, storage },
        state: { messages: 40, last_seq: 42 },
      });
      // As CREATE's, the config has the server's version and API level, and the info its time
      // (jetstream_api.go:3979-3984 at v2.11.0): the version we advertise and its level.
      expect(final!.config.metadata).toMatchObject({ '_nats.ver': '2.12.0', '_nats.level': '2' });
      expect(Date.parse(final!.ts)).toBeGreaterThan(Date.now() - 60_000);

      const after = await contents(nc, name);
      // A memory stream keeps no consumers, so only the file stream's durable comes back.
      expect(after.state.consumer_count).toBe(storage === 'file' ? 1 : 0);
      expect({ ...after, state: { ...after.state, consumer_count: 1 } }).toEqual(before);
      // The next message follows the deleted last one, as it would have before.
      const ack = await nc.request(`${name}.after`, 'next', { timeout: 5000 });
      expect(ack.json<Json>().seq).toBe(43);
      const names = await api(nc, `CONSUMER.NAMES.${name}`);
      expect(names.consumers ?? []).toEqual(storage === 'file' ? ['D'] : []);
      expect(staged()).toEqual([]);
    });
  }

  it("restores a file stream's snapshot as a memory stream and the other way round", async () => {
    for (const [from, to] of [
      ['file', 'memory'],
      ['memory', 'file'],
    ] as const) {
      const name = `X_${from}`;
      await fill(nc, name, from);
      const before = await contents(nc, name);
      const snap = await snapshot(nc, name);
      await api(nc, `STREAM.DELETE.${name}`);
      const config = { ...snap.response.config, storage: to };
      const { final } = await restore(nc, name, { ...snap.response, config }, snap.chunks);
      expect(final?.config?.storage).toBe(to);
      // Memory and file streams count bytes differently; everything else is the same.
      const withoutBytes = (c: Json) => ({ ...c, state: { ...c.state, bytes: 0 } });
      expect(withoutBytes(await contents(nc, name))).toEqual(withoutBytes(before));
      expect(staged()).toEqual([]);
    }
  });

  it('keeps at most window_size bytes unacknowledged, and goes on as acks come', async () => {
    await fill(nc, 'WINDOW', 'file');
    const deliver = '_INBOX.window';
    const received: Msg[] = [];
    const sub = nc.subscribe(deliver, {
      callback: (_error, m) => {
        received.push(m);
      },
    });
    await nc.flush();
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await api(nc, 'STREAM.SNAPSHOT.WINDOW', {
      deliver_subject: deliver,
      chunk_size: 1024,
      window_size: 4096,
    });
    await sleep(500);
    expect(received).toHaveLength(4);
    received[0]!.respond();
    await sleep(300);
    expect(received).toHaveLength(5);
    // Acking everything from now on lets the rest through, up to the empty end message.
    for (let acked = 1; received.at(-1)!.data.length > 0; ) {
      while (acked < received.length) received[acked++]!.respond();
      await sleep(20);
    }
    expect(received.length).toBeGreaterThan(6);
    sub.unsubscribe();
  });

  it('leaves out the consumers with no_consumers', async () => {
    await fill(nc, 'NOCONS', 'file');
    await api(nc, 'CONSUMER.DURABLE.CREATE.NOCONS.D', {
      stream_name: 'NOCONS',
      config: { durable_name: 'D', ack_policy: 'explicit' },
    });
    const snap = await snapshot(nc, 'NOCONS', { no_consumers: true });
    await api(nc, 'STREAM.DELETE.NOCONS');
    const { final } = await restore(nc, 'NOCONS', snap.response, snap.chunks);
    expect(final?.state.messages).toBe(40);
    expect((await api(nc, 'CONSUMER.NAMES.NOCONS')).consumers ?? []).toEqual([]);
  });

  describe('a bad upload fails with a clear error and leaves nothing behind', () => {
    let good: Snapshot;
    beforeAll(async () => {
      await fill(nc, 'BAD', 'file');
      good = await snapshot(nc, 'BAD', { chunk_size: 512 });
      await api(nc, 'STREAM.DELETE.BAD');
    });

    async function expectNoStream() {
      expect((await api(nc, 'STREAM.INFO.BAD')).error?.err_code).toBe(10059);
      expect(existsSync(join(account(), 'streams', 'BAD'))).toBe(false);
      expect(staged()).toEqual([]);
    }

    it('garbage: the chunk is answered with the error', async () => {
      const { response } = await restore(nc, 'BAD', good.response);
      const reply = await nc.request(response.deliver_subject, 'this is not a snapshot', {
        timeout: 5000,
      });
      expect(reply.json<Json>()).toEqual({
        type: 'io.nats.jetstream.api.v1.stream_create_response',
        error: {
          code: 500,
          err_code: 10062,
          description: 'restore failed: not a stream snapshot (unknown format)',
        },
      });
      await expectNoStream();
    });

    it('a flipped bit: record checksum mismatch, on the chunk that completes the record', async () => {
      const chunks = good.chunks.map((c) => Uint8Array.from(c));
      chunks[3]![100]! ^= 0x10;
      const { chunkReplies, final } = await restore(nc, 'BAD', good.response, chunks);
      expect(final).toBeUndefined();
      expect(chunkReplies.at(-1)?.error?.description).toBe(
        'restore failed: record checksum mismatch',
      );
      await expectNoStream();
    });

    it('truncated: the final message is answered with the error', async () => {
      const { final } = await restore(nc, 'BAD', good.response, good.chunks.slice(0, -1));
      expect(final?.error).toEqual({
        code: 500,
        err_code: 10062,
        description: 'restore failed: archive truncated: it has no end record',
      });
      await expectNoStream();
    });

    it('an upload that stops: given up after 5 s, its subject no longer answers', async () => {
      const { response } = await restore(nc, 'BAD', good.response);
      await nc.request(response.deliver_subject, good.chunks[0]!, { timeout: 5000 });
      expect(staged()).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 6000));
      await expect(
        nc.request(response.deliver_subject, good.chunks[1]!, { timeout: 1000 }),
      ).rejects.toThrow(/503|no responders/i);
      await expectNoStream();
    }, 15_000);

    it('the snapshot of another stream: names do not match', async () => {
      const other = {
        ...good.response,
        config: { ...good.response.config, name: 'OTHER', subjects: ['other.>'] },
      };
      const { chunkReplies } = await restore(nc, 'OTHER', other, good.chunks.slice(0, 1));
      expect(chunkReplies[0]?.error?.description).toBe('restore failed: stream names do not match');
      expect((await api(nc, 'STREAM.INFO.OTHER')).error?.err_code).toBe(10059);
      expect(staged()).toEqual([]);
    });
  });
});

describe('a stream on disk across a restart', () => {
  it('is served as it was restored, and what a crash left in staging is cleared', async () => {
    let server = await startSlipstreamServer({ jetstream: true });
    let nc = await connect({ servers: server.url });
    try {
      await fill(nc, 'KEPT', 'file');
      const snap = await snapshot(nc, 'KEPT');
      await api(nc, 'STREAM.DELETE.KEPT');
      await restore(nc, 'KEPT', snap.response, snap.chunks);
      const restored = await contents(nc, 'KEPT');
      await nc.close();
      await server.kill();
      // As a restore cut short by a crash would leave it.
      const leftover = join(server.dir, 'js', 'jetstream', '%24G', 'staging', 'crashed');
      mkdirSync(leftover, { recursive: true });
      writeFileSync(join(leftover, 'messages.db'), 'half a database');
      server = await server.restart();
      nc = await connect({ servers: server.url });
      expect(await contents(nc, 'KEPT')).toEqual(restored);
      expect(existsSync(leftover)).toBe(false);
    } finally {
      await nc.close();
      await server.stop();
    }
  });

  it('a damaged message never comes back: repaired at the start and reported lost, absent from a snapshot and its restore', async () => {
    let server = await startSlipstreamServer({ jetstream: true });
    let nc = await connect({ servers: server.url });
    try {
      await fill(nc, 'HURT', 'file');
      const filled = (await api(nc, 'STREAM.INFO.HURT')).state as Json;
      await nc.close();
      await server.kill();
      const file = join(server.dir, 'js', 'jetstream', '%24G', 'streams', 'HURT', 'messages.db');
      const bytes = readFileSync(file);
      const at = bytes.indexOf('message 13');
      expect(at).toBeGreaterThan(0);
      bytes[at + 8]! ^= 0x01;
      writeFileSync(file, bytes);
      server = await server.restart();
      nc = await connect({ servers: server.url });

      // The start found the damage, kept every intact message and named the damaged one lost.
      const repaired = (await api(nc, 'STREAM.INFO.HURT')).state as Json;
      const lost = (repaired.lost as { msgs: number[] }).msgs;
      expect(lost).toContain(13);
      // Beside it, at most sequences deleted before the damage (7 and the last, 42), which the
      // repair cannot tell from lost ones.
      expect(lost.filter((seq) => ![13, 7, 42].includes(seq))).toEqual([]);
      expect(repaired.messages).toBe((filled.messages as number) - 1);

      const checked = await snapshot(nc, 'HURT', { jsck: true });
      expect(checked.response.error).toBeUndefined();
      await api(nc, 'STREAM.DELETE.HURT');
      const { final } = await restore(nc, 'HURT', checked.response, checked.chunks);
      expect(final?.error).toBeUndefined();
      const restored = await messages(nc, 'HURT', filled.last_seq as number);
      expect(restored[13 - 1]).toBeNull();
      expect(restored.filter((m) => m !== null)).toHaveLength((filled.messages as number) - 1);
    } finally {
      await nc.close();
      await server.stop();
    }
  });
});

/**
 * The state a restore request carries (the snapshot's; nats-server does not read it, our jsapi
 * schema requires one, and `nats stream restore` always sends it).
 */
const EMPTY_STATE = { messages: 0, bytes: 0, first_seq: 0, last_seq: 0, consumer_count: 0 };

/** A stream config without the fields of newer servers, which ours writes and 2.9.10 does not. */
function olderFields(config: Json | undefined): Json | undefined {
  if (!config) return config;
  return Object.fromEntries(Object.entries(config).filter(([key]) => !newerFields.has(key)));
}

/** The same requests on both servers, compared as nats-server 2.9.10 answers them. */
describe('snapshot and restore control flow matches nats-server 2.9.10', () => {
  let ref: RunningNatsServer;
  let ours: RunningNatsServer;
  let refNc: NatsConnection;
  let ourNc: NatsConnection;
  beforeAll(async () => {
    [ref, ours] = await Promise.all([
      startNatsServer({ jetstream: true }),
      startSlipstreamServer({ jetstream: true }),
    ]);
    [refNc, ourNc] = await Promise.all([
      connect({ servers: ref.url }),
      connect({ servers: ours.url }),
    ]);
    for (const nc of [refNc, ourNc]) await fill(nc, 'FLOW', 'file');
  });
  afterAll(async () => {
    await Promise.all([refNc?.close(), ourNc?.close()]);
    await Promise.all([ref?.stop(), ours?.stop()]);
  });

  async function both<T>(run: (nc: NatsConnection) => Promise<T>): Promise<[T, T]> {
    return [await run(refNc), await run(ourNc)];
  }

  it.each([
    ['no body', 'STREAM.SNAPSHOT.FLOW', ''],
    ['no deliver subject', 'STREAM.SNAPSHOT.FLOW', {}],
    ['an empty deliver subject', 'STREAM.SNAPSHOT.FLOW', { deliver_subject: '' }],
    ['a missing stream', 'STREAM.SNAPSHOT.NOPE', { deliver_subject: 'x.y' }],
    [
      'a restore of an existing stream',
      'STREAM.RESTORE.FLOW',
      { config: { name: 'FLOW', subjects: ['FLOW.>'] }, state: EMPTY_STATE },
    ],
    ['a restore with no body', 'STREAM.RESTORE.FLOW', ''],
    [
      'a restore with a bad config',
      'STREAM.RESTORE.X',
      { config: { name: 'X', subjects: ['a'], retention: 'nope' }, state: EMPTY_STATE },
    ],
  ])('answers %s the same', async (_what, subject, body) => {
    const [theirs, mine] = await both((nc) => api(nc, subject, body));
    // 2.9.10 writes "invalid JSON"; ours says what is wrong after it, as newer servers do.
    if (mine.error?.err_code === 10025) mine.error.description = 'invalid JSON';
    expect(mine).toEqual(theirs);
  });

  it('a snapshot: the same answer keys, acked chunks on the same subjects, an empty message last', async () => {
    const advisories = new Map<NatsConnection, string[]>();
    for (const nc of [refNc, ourNc]) {
      const seen: string[] = [];
      advisories.set(nc, seen);
      nc.subscribe('$JS.EVENT.ADVISORY.STREAM.>', {
        callback: (_error, m) => {
          const { type, ...fields } = m.json<Json>();
          seen.push(`${m.subject} ${type} ${Object.keys(fields).sort().join(',')}`);
        },
      });
      await nc.flush();
    }
    const [theirs, mine] = await both((nc) => snapshot(nc, 'FLOW', { chunk_size: 1024 }));
    for (const snap of [theirs, mine]) {
      expect(Object.keys(snap.response).sort()).toEqual(['config', 'state', 'type']);
      for (const [index, subject] of snap.ackSubjects.entries()) {
        const size = snap.chunks[index]!.length;
        expect(subject).toMatch(
          new RegExp(`^\\$JS\\.SNAPSHOT\\.ACK\\.FLOW\\.\\w+\\.${size}\\.${index + 1}$`),
        );
      }
      expect(snap.chunks.every((c) => c.length > 0 && c.length <= 1024)).toBe(true);
      expect(snap.last).toEqual({ size: 0, hasHeaders: false });
    }
    expect(mine.response.state).toEqual({
      ...theirs.response.state,
      first_ts: mine.response.state.first_ts,
      last_ts: mine.response.state.last_ts,
    });
    expect(olderFields(mine.response.config)).toEqual(theirs.response.config);

    // Each server restores its own snapshot with the same answers at every step.
    const [refRestore, ourRestore] = await both(async (nc) => {
      const snap = nc === refNc ? theirs : mine;
      await api(nc, 'STREAM.DELETE.FLOW');
      return restore(nc, 'FLOW', snap.response, snap.chunks);
    });
    expect(Object.keys(ourRestore.response)).toEqual(Object.keys(refRestore.response));
    // Each chunk is acked with an empty message (the archives differ, so do their chunk counts).
    for (const { chunkReplies } of [refRestore, ourRestore]) {
      expect(chunkReplies.every((reply) => Object.keys(reply).length === 0)).toBe(true);
    }
    // Without `ts`, which 2.10 added to the answer (2.9.10 has none).
    const shape = ({ ts, ...r }: Json = {}) => ({
      ...r,
      config: olderFields(r?.config),
      created: typeof r?.created,
      state: { ...r?.state, first_ts: 0, last_ts: 0 },
    });
    expect(shape(ourRestore.final)).toEqual(shape(refRestore.final));
    // Snapshot create / complete, the delete, restore create, stream created, restore complete.
    await new Promise((r) => setTimeout(r, 200));
    expect(advisories.get(ourNc)!.sort()).toEqual(advisories.get(refNc)!.sort());
    expect(advisories.get(ourNc)).toHaveLength(6);
  });
});

/**
 * An account's limits are checked again when the upload ends, as nats-server adds the restored
 * stream only then: a stream made during the upload can take the storage it needed.
 */
describe('a restore that no longer fits when its upload ends, as nats-server 2.9.10', () => {
  const config = `accounts {
    A { jetstream { max_file: 1048576, max_mem: 4096 }, users [{ user: a, password: pw }] }
  }`;

  async function lateRefusal(start: typeof startNatsServer): Promise<Json[]> {
    const server = await start({ jetstream: true, config });
    const nc = await connect({ servers: server.url, user: 'a', pass: 'pw' });
    try {
      const made = await api(nc, 'STREAM.CREATE.LATE', {
        name: 'LATE',
        subjects: ['late.>'],
        max_bytes: 400_000,
      });
      expect(made.error).toBeUndefined();
      await nc.request('late.1', 'one', { timeout: 5000 });
      const snap = await snapshot(nc, 'LATE');
      await api(nc, 'STREAM.DELETE.LATE');
      const { response } = await restore(nc, 'LATE', snap.response);
      // Meanwhile another stream reserves most of the account's file storage.
      const block = await api(nc, 'STREAM.CREATE.BLOCK', {
        name: 'BLOCK',
        subjects: ['block.>'],
        max_bytes: 700_000,
      });
      const chunkReplies: Json[] = [];
      for (const chunk of snap.chunks) {
        const reply = await nc.request(response.deliver_subject, chunk, { timeout: 5000 });
        chunkReplies.push(reply.data.length === 0 ? {} : reply.json<Json>());
      }
      const final = await nc.request(response.deliver_subject, new Uint8Array(0), {
        timeout: 10_000,
      });
      const info = await api(nc, 'STREAM.INFO.LATE');
      return [
        { restore: response.error ?? 'started', block: block.error ?? 'made' },
        { chunks: chunkReplies.every((r) => Object.keys(r).length === 0) },
        final.json<Json>(),
        { after: info.error?.err_code },
      ];
    } finally {
      await nc.close();
      await server.stop();
    }
  }

  it('answers the upload with the limit error and leaves no stream', async () => {
    const theirs = await lateRefusal(startNatsServer);
    const ours = await lateRefusal(startSlipstreamServer);
    expect(ours).toEqual(theirs);
    expect((theirs[2]!.error as Json).err_code).toBe(10047);
  });
});
