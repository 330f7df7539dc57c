/**
 * Atomic batch publish of nats-server 2.12 (ADR-50) on our server: `allow_atomic`, the
 * `Nats-Batch-Id` / `-Sequence` / `-Commit` headers, staging with empty acks, the commit's
 * checks of every message before anything is stored, the PubAck with `batch` and `count`, the
 * limits, the abandoned-batch advisories. Only nats-server 2.9.10 runs here (it stores batch
 * messages as plain ones), so each test follows the nats-server test named in it, in
 * server/jetstream_batching_test.go at v2.12.15, with the answers written out from it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AtomicBatchLimits,
  type NatsServer,
  silentLogger,
  startServer,
} from '../src/index.js';

const apiError = (err_code: number, description: string, code = 400) => ({
  code,
  err_code,
  description,
});
const disabled = apiError(10174, 'atomic publish is disabled');
const missingSeq = apiError(10175, 'atomic publish sequence is missing');
const incomplete = apiError(10176, 'atomic publish batch is incomplete');
const invalidId = apiError(10179, 'atomic publish batch ID is invalid');
const tooLarge = (size: number) => apiError(10199, `atomic publish batch is too large: ${size}`);
const invalidCommit = apiError(10200, 'atomic publish batch commit is invalid');
const duplicate = apiError(10201, 'atomic publish batch contains duplicate message id');
const wrongLast = (seq: number) => apiError(10071, `wrong last sequence: ${seq}`);
const wrongLastConstant = apiError(10164, 'wrong last sequence');

let server: NatsServer | undefined;
let nc: NatsConnection | undefined;
let storeDir = '';

afterEach(async () => {
  await nc?.close();
  await server?.close();
  if (storeDir) await rm(storeDir, { recursive: true, force: true });
  nc = server = undefined;
  storeDir = '';
});

async function start(
  atomicBatch: Partial<AtomicBatchLimits> = {},
  account?: { maxMemory: number },
): Promise<NatsConnection> {
  storeDir = await mkdtemp(join(tmpdir(), 'slipstream-batch-'));
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    jetstream: { storeDir, atomicBatch },
    ...(account && {
      accounts: { A: { users: [{ user: 'a', pass: 'pw' }], jetstream: account } },
    }),
    logger: silentLogger,
  });
  const auth = account ? { user: 'a', pass: 'pw' } : {};
  nc = await connect({ servers: `127.0.0.1:${server.port}`, ...auth });
  return nc;
}

type Json = Record<string, unknown>;

async function api(subject: string, body: unknown = ''): Promise<Json> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (await nc!.request(subject, text, { timeout: 2_000 })).json<Json>();
}

async function createStream(config: Json): Promise<Json> {
  const answer = await api(`$JS.API.STREAM.CREATE.${config.name}`, config);
  expect(answer.error).toBeUndefined();
  return answer;
}

function batchHeaders(fields: Record<string, string>) {
  const h = headers();
  for (const [name, value] of Object.entries(fields)) h.set(name, value);
  return h;
}

/** Publishes with a reply and returns the answer: undefined for an empty one (staged). */
async function send(
  subject: string,
  fields: Record<string, string>,
  data = '',
): Promise<Json | undefined> {
  const answer: Msg = await nc!.request(subject, data, {
    headers: batchHeaders(fields),
    timeout: 2_000,
  });
  return answer.data.length === 0 ? undefined : answer.json<Json>();
}

/** Publishes without a reply, then flushes so the server has it. */
async function fire(subject: string, fields: Record<string, string>, data = ''): Promise<void> {
  nc!.publish(subject, data, { headers: batchHeaders(fields) });
  await nc!.flush();
}

const member = (id: string, seq: number, extra: Record<string, string> = {}) => ({
  'Nats-Batch-Id': id,
  'Nats-Batch-Sequence': String(seq),
  ...extra,
});
const commit = (id: string, seq: number, extra: Record<string, string> = {}) =>
  member(id, seq, { 'Nats-Batch-Commit': '1', ...extra });

async function streamState(name: string): Promise<{ messages: number; last_seq: number }> {
  return (await api(`$JS.API.STREAM.INFO.${name}`)).state as { messages: number; last_seq: number };
}

async function stored(stream: string, seq: number) {
  const answer = await api(`$JS.API.STREAM.MSG.GET.${stream}`, { seq });
  const found = answer.message as { subject: string; data?: string; hdrs?: string } | undefined;
  if (!found) return undefined;
  return {
    subject: found.subject,
    data: Buffer.from(found.data ?? '', 'base64').toString(),
    headers: found.hdrs ? Buffer.from(found.hdrs, 'base64').toString() : '',
  };
}

describe('atomic batch publish (nats-server 2.12)', () => {
  // TestJetStreamAtomicBatchPublish, jetstream_batching_test.go:35-161
  for (const storage of ['file', 'memory']) {
    for (const retention of ['limits', 'interest', 'workqueue']) {
      it(`refuses, stages and commits as nats-server (${storage}, ${retention})`, async () => {
        await start();
        const config = { name: 'TEST', subjects: ['foo.*'], storage, retention };
        await createStream(config);
        expect((await send('foo.0', { 'Nats-Batch-Id': 'uuid' }, 'foo.0'))?.error).toEqual(
          disabled,
        );
        const updated = await api('$JS.API.STREAM.UPDATE.TEST', { ...config, allow_atomic: true });
        expect((updated.config as Json).allow_atomic).toBe(true);
        expect((await send('foo.0', { 'Nats-Batch-Id': 'uuid' }, 'foo.0'))?.error).toEqual(
          missingSeq,
        );
        // Misses its start.
        expect((await send('foo.0', member('uuid', 2), 'foo.0'))?.error).toEqual(incomplete);
        // A batch of one, committed at once.
        expect(await send('foo.0', commit('uuid', 1), 'foo.0')).toEqual({
          stream: 'TEST',
          seq: 1,
          batch: 'uuid',
          count: 1,
        });
        // A gap.
        await fire('foo.0', member('uuid', 1), 'foo.0');
        expect((await send('foo.0', member('uuid', 3), 'foo.0'))?.error).toEqual(incomplete);
        // Five messages.
        for (let seq = 1; seq < 5; seq++)
          await fire(`foo.${seq}`, member('uuid', seq), `foo.${seq}`);
        expect(await send('foo.5', commit('uuid', 5), 'foo.5')).toEqual({
          stream: 'TEST',
          seq: 6,
          batch: 'uuid',
          count: 5,
        });
        if (retention !== 'interest') {
          for (let seq = 1; seq <= 6; seq++) {
            expect(await stored('TEST', seq)).toMatchObject({
              subject: `foo.${seq - 1}`,
              data: `foo.${seq - 1}`,
            });
          }
        }
      });
    }
  }

  // TestJetStreamAtomicBatchPublishEmptyAck, jetstream_batching_test.go:163-223
  it('answers each staged message that asks with an empty message, the commit with the PubAck', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo.*'], allow_atomic: true });
    for (let seq = 1; seq < 5; seq++) {
      expect(await send(`foo.${seq}`, member('uuid', seq))).toBeUndefined();
    }
    expect(await send('foo.5', commit('uuid', 5))).toEqual({
      stream: 'TEST',
      seq: 5,
      batch: 'uuid',
      count: 5,
    });
  });

  // TestJetStreamAtomicBatchPublishLimits, jetstream_batching_test.go:225-377
  it('holds to the id length, the open batches per stream and server, the timeout and the size', async () => {
    await start({ maxInflightPerStream: 1, maxInflightTotal: 1, maxMsgs: 2, timeout: 500 });
    await createStream({ name: 'FOO', subjects: ['foo'], allow_atomic: true });
    await createStream({ name: 'BAR', subjects: ['bar'], allow_atomic: true });
    expect((await send('foo', commit('A'.repeat(64), 1)))?.error).toBeUndefined();
    expect((await send('foo', commit('A'.repeat(65), 1)))?.error).toEqual(invalidId);

    await fire('foo', member('uuid', 1));
    // A second batch on the stream, then one on another stream: over the limits.
    expect((await send('foo', commit('exceeds_threshold', 1)))?.error).toEqual(incomplete);
    expect((await send('bar', commit('bar', 1)))?.error).toEqual(incomplete);
    // The open batch times out; its next message finds it gone.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect((await send('foo', commit('uuid', 2)))?.error).toEqual(incomplete);
    // The timed-out batch freed its place on the server.
    expect((await send('bar', commit('bar', 1)))?.count).toBe(1);

    for (const size of [2, 3]) {
      for (let seq = 1; seq < size; seq++) await fire('foo', member('exceeds_threshold', seq));
      const answer = await send('foo', commit('exceeds_threshold', size));
      if (size <= 2) expect(answer).toMatchObject({ batch: 'exceeds_threshold', count: size });
      else expect(answer?.error).toEqual(tooLarge(2));
    }
    // A later message of a batch that is not open, beyond the largest batch.
    expect((await send('foo', member('never-started', 3)))?.error).toEqual(tooLarge(2));
  });

  // TestJetStreamAtomicBatchPublishDedupeNotAllowed, jetstream_batching_test.go:379-449
  it('refuses a batch with a message id already in the duplicate window or twice in it', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
    const first = await send('foo', { 'Nats-Msg-Id': 'pre-existing' });
    expect(first).toEqual({ stream: 'TEST', seq: 1 });
    expect(
      (await send('foo', commit('uuid', 1, { 'Nats-Msg-Id': 'pre-existing' })))?.error,
    ).toEqual(duplicate);
    await fire('foo', member('uuid', 1, { 'Nats-Msg-Id': 'msgId1' }));
    expect((await send('foo', commit('uuid', 2, { 'Nats-Msg-Id': 'msgId1' })))?.error).toEqual(
      duplicate,
    );
    await fire('foo', member('uuid', 1, { 'Nats-Msg-Id': 'msgId1' }));
    expect(await send('foo', commit('uuid', 2, { 'Nats-Msg-Id': 'msgId2' }))).toEqual({
      stream: 'TEST',
      seq: 3,
      batch: 'uuid',
      count: 2,
    });
    // The batch's ids are in the window now.
    expect(await send('foo', { 'Nats-Msg-Id': 'msgId2' })).toEqual({
      stream: 'TEST',
      seq: 3,
      duplicate: true,
    });
  });

  // TestJetStreamAtomicBatchPublishSourceAndMirror, jetstream_batching_test.go:451-550
  it('lets mirrors and sources copy batches without their batch headers, and no mirror batch itself', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
    await fire('foo', member('uuid', 1));
    await fire('foo', member('uuid', 2));
    expect(await send('foo', commit('uuid', 3))).toMatchObject({ seq: 3, count: 3 });
    expect((await api('$JS.API.STREAM.MSG.DELETE.TEST', { seq: 2 })).success).toBe(true);
    const mirrorBatching = await api('$JS.API.STREAM.CREATE.M-no-batch', {
      name: 'M-no-batch',
      mirror: { name: 'TEST' },
      allow_atomic: true,
    });
    expect(mirrorBatching.error).toEqual(
      apiError(10198, 'stream mirrors can not also use atomic publishing'),
    );
    await createStream({ name: 'M', mirror: { name: 'TEST' } });
    await createStream({ name: 'S', sources: [{ name: 'TEST' }] });
    const deadline = Date.now() + 5_000;
    while ((await streamState('M')).messages < 2 || (await streamState('S')).messages < 2) {
      if (Date.now() > deadline) throw new Error('mirror and source did not catch up');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await stored('M', 1))?.headers).toBe('');
    expect((await stored('M', 3))?.headers).toBe('');
    // nats-server 2.12 writes 'TEST 1 > > foo' here; the source header is ours as before.
    for (const [seq, origin] of [
      [1, 1],
      [2, 3],
    ]) {
      const headers = (await stored('S', seq!))?.headers;
      expect(headers).toContain(`Nats-Stream-Source: TEST ${origin}`);
      expect(headers).not.toContain('Nats-Batch');
    }
    // The origin keeps them.
    expect((await stored('TEST', 3))?.headers).toContain('Nats-Batch-Commit: 1');
  });

  // TestJetStreamAtomicBatchPublishCleanup, jetstream_batching_test.go:552-686 (Disable, Commit)
  it('drops the open batches when atomic publish is turned off, and a committed one', async () => {
    await start();
    const config = { name: 'TEST', subjects: ['foo'], allow_atomic: true };
    await createStream(config);
    await fire('foo', member('uuid', 1));
    expect(await send('foo', commit('commit', 1))).toMatchObject({ seq: 1, count: 1 });
    // 'uuid' is still open: it commits.
    expect(await send('foo', commit('uuid', 2))).toMatchObject({ seq: 3, count: 2 });
    // A committed batch is gone.
    expect((await send('foo', commit('uuid', 3)))?.error).toEqual(incomplete);

    await fire('foo', member('open', 1));
    await api('$JS.API.STREAM.UPDATE.TEST', { ...config, allow_atomic: false });
    await api('$JS.API.STREAM.UPDATE.TEST', config);
    expect((await send('foo', commit('open', 2)))?.error).toEqual(incomplete);
    expect((await streamState('TEST')).messages).toBe(3);
  });

  // TestJetStreamAtomicBatchPublishDenyHeaders, jetstream_batching_test.go:755-791
  it('refuses Nats-Expected-Last-Msg-Id inside a batch', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
    const answer = await send('foo', commit('uuid', 1, { 'Nats-Expected-Last-Msg-Id': 'msgId' }));
    expect(answer?.error).toEqual(
      apiError(10177, 'atomic publish unsupported header used: Nats-Expected-Last-Msg-Id'),
    );
    // On any message of the batch, not only the commit.
    await fire('foo', member('uuid', 1, { 'Nats-Expected-Last-Msg-Id': 'msgId' }));
    expect((await send('foo', commit('uuid', 2)))?.error).toEqual(
      apiError(10177, 'atomic publish unsupported header used: Nats-Expected-Last-Msg-Id'),
    );
    expect((await streamState('TEST')).messages).toBe(0);
  });

  // TestJetStreamAtomicBatchPublishExpectedPerSubject, jetstream_batching_test.go:1619-1695
  for (const kind of ['single', 'redundant', 'not-first'] as const) {
    it(`checks an expected subject sequence against the stream before the batch (${kind})`, async () => {
      await start();
      await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
      await send('foo', {});
      const expectOne = { 'Nats-Expected-Last-Subject-Sequence': '1' };
      await fire('foo', member('uuid', 1, kind !== 'not-first' ? expectOne : {}));
      const answer = await send('foo', commit('uuid', 2, kind !== 'single' ? expectOne : {}));
      if (kind !== 'single') {
        expect(answer?.error).toEqual(wrongLastConstant);
        expect((await streamState('TEST')).messages).toBe(1);
        return;
      }
      expect(answer).toMatchObject({ seq: 3, count: 2 });
      expect((await stored('TEST', 2))?.headers).toContain(
        'Nats-Expected-Last-Subject-Sequence: 1',
      );
      expect((await stored('TEST', 3))?.headers).not.toContain(
        'Nats-Expected-Last-Subject-Sequence',
      );
    });
  }

  // TestJetStreamAtomicBatchPublishAdvisories, jetstream_batching_test.go:2582-2707
  it('advises of a batch abandoned for a gap, its size, its timeout and its API level', async () => {
    await start({ timeout: 1_500 });
    await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
    const advisories: Json[] = [];
    nc!.subscribe('$JS.EVENT.ADVISORY.STREAM.BATCH_ABANDONED.*', {
      callback: (_error, m) => {
        advisories.push(m.json<Json>());
      },
    });
    await nc!.flush();
    const next = async () => {
      const deadline = Date.now() + 3_000;
      while (advisories.length === 0) {
        if (Date.now() > deadline) throw new Error('no advisory');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return advisories.shift()!;
    };
    await fire('foo', member('uuid', 1));
    await fire('foo', member('uuid', 3));
    expect(await next()).toMatchObject({
      type: 'io.nats.jetstream.advisory.v1.stream_batch_abandoned',
      stream: 'TEST',
      batch: 'uuid',
      reason: 'incomplete',
    });
    for (let seq = 1; seq < 1002; seq++) await fire('foo', member('uuid', seq));
    expect((await send('foo', commit('uuid', 1002)))?.error).toEqual(tooLarge(1000));
    expect(await next()).toMatchObject({ batch: 'uuid', reason: 'large' });
    await fire('foo', member('uuid', 1));
    expect(await next()).toMatchObject({ batch: 'uuid', reason: 'timeout' });
    await fire('foo', member('uuid', 1, { 'Nats-Required-Api-Level': '9223372036854775807' }));
    expect(await next()).toMatchObject({ batch: 'uuid', reason: 'unsupported' });
    expect((await streamState('TEST')).messages).toBe(0);
  });

  // TestJetStreamAtomicBatchPublishExpectedSeq, jetstream_batching_test.go:2709-2773
  it('compares a batch of one expected last sequence with the stream', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
    await send('foo', {});
    await send('foo', { 'Nats-Expected-Last-Sequence': '1' });
    expect(await send('foo', commit('uuid', 1, { 'Nats-Expected-Last-Sequence': '2' }))).toEqual({
      stream: 'TEST',
      seq: 3,
      batch: 'uuid',
      count: 1,
    });
    // Wrong, then right but not on the first message.
    expect(
      (await send('foo', commit('b', 1, { 'Nats-Expected-Last-Sequence': '2' })))?.error,
    ).toEqual(wrongLast(3));
    await fire('foo', member('c', 1));
    expect(
      (await send('foo', commit('c', 2, { 'Nats-Expected-Last-Sequence': '4' })))?.error,
    ).toEqual(wrongLastConstant);
    await fire('foo', member('d', 1));
    expect(
      (await send('foo', commit('d', 2, { 'Nats-Expected-Last-Sequence': '3' })))?.error,
    ).toEqual(wrongLast(4));
  });

  // TestJetStreamAtomicBatchPublishExpectedLastSubjectSequence, jetstream_batching_test.go:2998-3044
  it('takes expected sequences of other subjects on any message of the batch', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo.*'], allow_atomic: true });
    await send('foo.A', {});
    await send('foo.B', {});
    const first = await send(
      'foo.A',
      member('uuid', 1, {
        'Nats-Expected-Last-Sequence': '2',
        'Nats-Expected-Last-Subject-Sequence': '1',
        'Nats-Expected-Last-Subject-Sequence-Subject': 'foo.A',
      }),
    );
    expect(first).toBeUndefined();
    const answer = await send(
      'foo.B',
      commit('uuid', 2, {
        'Nats-Expected-Last-Subject-Sequence': '2',
        'Nats-Expected-Last-Subject-Sequence-Subject': 'foo.B',
      }),
    );
    expect(answer).toEqual({ stream: 'TEST', seq: 4, batch: 'uuid', count: 2 });
  });

  // TestJetStreamAtomicBatchPublishExpectedLastSubjectSequenceOwnership, :3046-3105
  it('checks each message against the subject filter it names, in a memory stream', async () => {
    await start();
    await createStream({
      name: 'EVENTS',
      subjects: ['events.>'],
      storage: 'memory',
      allow_atomic: true,
    });
    const entry = 'diary.entry_BBBBBBBBBBBBBBBBBBBBBBBB';
    const oldDay = 'diary-day.day_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC';
    const targetDay = 'diary-day.day_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const mutation = 'mutation.mut_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD';
    const entities = Array.from(
      { length: 19 },
      (_, i) => `seed.entity_${String(i + 1).padStart(2, '0')}`,
    );
    entities[10] = targetDay;
    entities[17] = entry;
    entities[18] = oldDay;
    for (const [i, entity] of entities.entries()) {
      expect(await send(`events.${entity}.balance`, {})).toMatchObject({ seq: i + 1 });
    }
    const batch = [entry, oldDay, targetDay, mutation];
    const expected = [18, 19, 11, 0];
    for (const [i, entity] of batch.entries()) {
      const fields = member('uuid', i + 1, {
        'Nats-Expected-Last-Subject-Sequence-Subject': `events.${entity}.*`,
        'Nats-Expected-Last-Subject-Sequence': String(expected[i]),
      });
      if (i < batch.length - 1) {
        expect(await send(`events.${entity}.balance`, fields)).toBeUndefined();
        continue;
      }
      const answer = await send(`events.${entity}.balance`, {
        ...fields,
        'Nats-Batch-Commit': '1',
      });
      expect(answer).toEqual({ stream: 'EVENTS', seq: 23, batch: 'uuid', count: 4 });
    }
  });

  // TestJetStreamAtomicBatchPublishCommitUnsupported, jetstream_batching_test.go:3107-3161
  it('refuses and drops a batch whose commit is not "1"', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo'], storage: 'memory', allow_atomic: true });
    for (const value of ['', 'unsupported', '0', 'eob']) {
      expect(await send('foo', member('uuid', 1))).toBeUndefined();
      const answer = await send('foo', member('uuid', 2, { 'Nats-Batch-Commit': value }));
      expect(answer?.error, value).toEqual(invalidCommit);
      // Dropped: its next message finds no batch.
      expect((await send('foo', member('uuid', 3)))?.error).toEqual(incomplete);
    }
    expect((await streamState('TEST')).messages).toBe(0);

    // The required API level refuses the batch, or is checked and left out of the stored message.
    const maxInt = { 'Nats-Required-Api-Level': '9223372036854775807' };
    expect((await send('foo', commit('uuid', 1, maxInt)))?.error).toEqual(
      apiError(10185, 'JetStream minimum api level required', 412),
    );
    const answer = await send('foo', commit('uuid', 1, { 'Nats-Required-Api-Level': '0' }));
    expect(answer).toEqual({ stream: 'TEST', seq: 1, batch: 'uuid', count: 1 });
    expect((await stored('TEST', 1))?.headers).not.toContain('Nats-Required-Api-Level');
  });

  // TestJetStreamAtomicBatchPublishCounterSingleServer, jetstream_batching_test.go:1697-1763
  for (const storage of ['file', 'memory']) {
    it(`stores a batch of counter increments as running totals (${storage})`, async () => {
      await start();
      await createStream({
        name: 'TEST',
        subjects: ['foo'],
        storage,
        allow_atomic: true,
        allow_msg_counter: true,
      });
      await fire('foo', member('uuid', 1, { 'Nats-Incr': '1' }));
      expect(await send('foo', commit('uuid', 2, { 'Nats-Incr': '2' }))).toEqual({
        stream: 'TEST',
        seq: 2,
        batch: 'uuid',
        count: 2,
      });
      expect((await stored('TEST', 1))?.data).toBe('{"val":"1"}');
      expect((await stored('TEST', 2))?.data).toBe('{"val":"3"}');
      expect(await send('foo', { 'Nats-Incr': '5' })).toMatchObject({ seq: 3, val: '8' });
      // A bad increment anywhere in the batch refuses all of it (jetstream_batching.go:255-286).
      await fire('foo', member('bad', 1, { 'Nats-Incr': '1' }));
      expect((await send('foo', commit('bad', 2, { 'Nats-Incr': 'x' })))?.error).toEqual(
        apiError(10171, 'message counter increment is invalid'),
      );
      await fire('foo', member('bad', 1, { 'Nats-Incr': '1' }));
      expect((await send('foo', commit('bad', 2)))?.error).toEqual(
        apiError(10169, 'message counter increment is missing'),
      );
      expect(await streamState('TEST')).toMatchObject({ messages: 3, last_seq: 3 });
    });
  }

  // The account's storage budget is checked for the whole batch at its commit, so a memory stream
  // (whose store cannot undo a message) never keeps the part of a batch that fit.
  it('refuses a batch the account has no room for as a whole, storing none of it', async () => {
    await start({}, { maxMemory: 1_000 });
    await createStream({ name: 'MEM', subjects: ['mem'], storage: 'memory', allow_atomic: true });
    const body = 'x'.repeat(400);
    await fire('mem', member('big', 1), body);
    await fire('mem', member('big', 2), body);
    expect((await send('mem', commit('big', 3), body))?.error).toEqual(
      apiError(10002, 'resource limits exceeded for account'),
    );
    expect((await streamState('MEM')).messages).toBe(0);
    expect(await send('mem', commit('small', 1), body)).toMatchObject({ seq: 1, count: 1 });
  });

  // v2.12.15 stream.go parseInt64 of Nats-Batch-Sequence: what is not digits is -1, a uint64 max.
  it('reads a sequence that is not a number as nats-server does, and never crashes or stores', async () => {
    await start();
    await createStream({ name: 'TEST', subjects: ['foo'], allow_atomic: true });
    for (const value of ['abc', '-1', '1.0', '+1', '18446744073709551615']) {
      const answer = await send('foo', { ...commit('x', 1), 'Nats-Batch-Sequence': value });
      expect(answer?.error, value).toEqual(tooLarge(1000));
    }
    for (const value of ['0', '2', '999']) {
      expect(
        (await send('foo', { ...commit('x', 1), 'Nats-Batch-Sequence': value }))?.error,
      ).toEqual(incomplete);
    }
    expect((await send('foo', { ...commit('x', 1), 'Nats-Batch-Sequence': '' }))?.error).toEqual(
      missingSeq,
    );
    // Inside an open batch, a sequence that is not the next abandons it.
    await fire('foo', member('open', 1));
    expect(
      (await send('foo', { ...member('open', 1), 'Nats-Batch-Sequence': 'two' }))?.error,
    ).toEqual(incomplete);
    // An empty batch id is no batch: a plain message.
    expect(await send('foo', { 'Nats-Batch-Id': '', 'Nats-Batch-Sequence': '7' })).toEqual({
      stream: 'TEST',
      seq: 1,
    });
  });

  // checkMsgHeadersPreClusteredProposal, jetstream_batching.go:580-668 at v2.12.15
  it('refuses a whole batch for a later message, storing none of it', async () => {
    await start();
    await createStream({
      name: 'TEST',
      subjects: ['foo.*'],
      allow_atomic: true,
      allow_rollup_hdrs: true,
      discard: 'new',
      max_msgs: 4,
    });
    await send('foo.a', {});
    const refused = async (extra: Record<string, string>, last = 'foo.c') => {
      await fire('foo.a', member('b', 1));
      await fire('foo.b', member('b', 2));
      return (await send(last, commit('b', 3, extra)))?.error;
    };
    expect(await refused({ 'Nats-Rollup': 'all' })).toEqual(
      apiError(10111, 'batch rollup all invalid', 500),
    );
    expect(await refused({ 'Nats-Rollup': 'sub' }, 'foo.a')).toEqual(
      apiError(10111, 'batch rollup sub invalid', 500),
    );
    expect(await refused({ 'Nats-Rollup': 'bogus' })).toEqual(
      apiError(10111, 'rollup value invalid: "bogus"', 500),
    );
    expect(await refused({ 'Nats-Expected-Stream': 'OTHER' })).toEqual(
      apiError(10060, 'expected stream does not match', 400),
    );
    expect(await refused({ 'Nats-TTL': '1s' })).toEqual(
      apiError(10166, 'per-message TTL is disabled', 400),
    );
    expect(await refused({ 'Nats-Expected-Last-Subject-Sequence-Subject': 'foo.a' })).toEqual(
      apiError(10193, 'missing sequence for expected last sequence per subject'),
    );
    await fire('foo.a', member('b', 1));
    await fire('foo.b', member('b', 2));
    await fire('foo.c', member('b', 3));
    expect((await send('foo.d', commit('b', 4)))?.error).toEqual(
      apiError(10077, 'maximum messages exceeded', 503),
    );
    expect(await streamState('TEST')).toMatchObject({ messages: 1, last_seq: 1 });
    // Within the limit: all of it.
    expect(await send('foo.c', commit('ok', 1))).toMatchObject({ seq: 2, count: 1 });
  });
});
