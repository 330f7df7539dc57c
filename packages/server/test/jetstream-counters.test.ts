/**
 * Message counters of nats-server 2.12 (ADR-49) on our server: `allow_msg_counter`, `Nats-Incr`
 * increments of any size, the stored `{"val":"..."}`, the total in the PubAck, the refusals, and
 * totals aggregated through sources with `Nats-Counter-Sources`. Only nats-server 2.9.10 runs
 * here, so each test follows the nats-server test named in it, in server/jetstream_test.go at
 * v2.12.1 (and the rules in server/stream.go at that tag).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger, startServer } from '../src/index.js';
import { countMessage } from '../src/jetstream/stream/counter.js';
import { errorOf, until, useStreamServer } from './jetstream-stream-harness.js';
import { JsProbe } from './js-probe.js';

const js = useStreamServer();
const { create, created, update, message } = js;

const incr = (subject: string, by: string, more: Record<string, string> = {}, body = '') =>
  js.probe.request(subject, body, { 'Nats-Incr': by, ...more });
const apiError = (err_code: number, description: string, code = 400) => ({
  code,
  err_code,
  description,
});
const invalidConfig = (description: string) => apiError(10052, description, 500);
const incrDisabled = apiError(10168, 'message counters is disabled');
const incrMissing = apiError(10169, 'message counter increment is missing');
const incrPayload = apiError(10170, 'message counter has payload');
const incrInvalid = apiError(10171, 'message counter increment is invalid');
const counterBroken = apiError(10172, 'message counter is broken');

describe('counters (nats-server 2.12)', () => {
  // TestJetStreamAllowMsgCounter, jetstream_test.go:20602-20740
  it('counts increments, refuses what is not one, and never stores a refused message', async () => {
    await created({ name: 'PLAIN', subjects: ['plain'] });
    // stream.go:5480-5488: an increment on a stream without counters.
    expect(errorOf(await incr('plain', '1'))).toEqual(incrDisabled);
    // stream.go:2148-2150
    expect(
      errorOf(await update({ name: 'PLAIN', subjects: ['plain'], allow_msg_counter: true })),
    ).toEqual(invalidConfig('stream configuration update can not change message counter setting'));

    const answer = await created({ name: 'TEST', subjects: ['foo'], allow_msg_counter: true });
    expect(answer.config).toMatchObject({ allow_msg_counter: true });
    expect(errorOf(await js.probe.request('foo', ''))).toEqual(incrMissing);
    expect(errorOf(await js.probe.request('foo', '', { Key: 'Value' }))).toEqual(incrMissing);
    expect(errorOf(await incr('foo', '1', {}, 'data'))).toEqual(incrPayload);
    for (const bad of ['bogus', '1.5', '0x10', '++1', '1e3']) {
      expect(errorOf(await incr('foo', bad))).toEqual(incrInvalid);
    }
    // An invalid increment is refused even on a stream without counters (stream.go:5470).
    expect(errorOf(await incr('plain', 'bogus'))).toEqual(incrInvalid);

    const step = async (by: string, seq: number, total: string) => {
      expect(await incr('foo', by)).toEqual({ stream: 'TEST', seq, val: total });
      expect(await message('TEST', seq)).toMatchObject({ data: `{"val":"${total}"}` });
    };
    await step('1', 1, '1');
    await step('2', 2, '3');
    await step('-3', 3, '0');
    await step('+1', 4, '1');
    await step('-1', 5, '0');
    // Beyond 64 bits, either way (big.Int).
    await step('18446744073709551616', 6, '18446744073709551616');
    await step('-36893488147419103232', 7, '-18446744073709551616');
    await step('18446744073709551616', 8, '0');

    // A duplicate is acked without a value and counts nothing.
    expect(await incr('foo', '1', { 'Nats-Msg-Id': 'dedupe' })).toEqual({
      stream: 'TEST',
      seq: 9,
      val: '1',
    });
    expect(await incr('foo', '1', { 'Nats-Msg-Id': 'dedupe' })).toEqual({
      stream: 'TEST',
      seq: 9,
      duplicate: true,
    });

    // Headers whose promise an increment cannot keep (stream.go:5496-5520).
    for (const header of [
      'Nats-Rollup',
      'Nats-Expected-Last-Sequence',
      'Nats-Expected-Last-Subject-Sequence',
      'Nats-Expected-Last-Subject-Sequence-Subject',
      'Nats-Expected-Last-Msg-Id',
    ]) {
      expect(errorOf(await incr('foo', '1', { [header]: '1' }))).toEqual(incrInvalid);
    }
    // Nothing refused was stored: the last message is still the total 1 at 9.
    const info = await js.info('TEST');
    expect(info.state).toMatchObject({ messages: 9, last_seq: 9 });
  });

  // TestJetStreamAllowMsgCounter's broken counter, jetstream_test.go:20724-20738: the test
  // writes a message without a value straight into the store, which only the store's own code
  // can do, so the rule (stream.go:5776-5799) is checked on countMessage itself.
  it('refuses to count on a stored value or sources record that is not a counter', () => {
    const previous = (payload: string, headers?: string) => ({
      subject: 'foo',
      seq: 7,
      time: 0n,
      payload: Buffer.from(payload),
      headers: headers ? Buffer.from(`NATS/1.0\r\n${headers}\r\n\r\n`) : undefined,
    });
    const increment = Buffer.from('NATS/1.0\r\nNats-Incr: 1\r\n\r\n');
    const none = new Uint8Array(0);
    for (const broken of ['', 'not json', '"text"', '[1]', '{"val":5}']) {
      expect(countMessage(increment, none, previous(broken), undefined)).toMatchObject({
        err_code: counterBroken.err_code,
      });
    }
    const badSources = previous('{"val":"1"}', 'Nats-Counter-Sources: {"O":"x"}');
    expect(countMessage(increment, none, badSources, undefined)).toMatchObject({
      err_code: counterBroken.err_code,
    });
    // An object without a value reads as zero, as Go's json.Unmarshal leaves the field empty.
    expect(countMessage(increment, none, previous('{}'), undefined)).toMatchObject({
      total: '1',
    });
  });

  // TestJetStreamAllowMsgCounterMaxPayloadAndSize, jetstream_test.go:20766-20856
  it('checks the stored value against max_msg_size', async () => {
    await created({ name: 'TEST', subjects: ['foo'], allow_msg_counter: true });
    expect(await incr('foo', '1')).toMatchObject({ seq: 1, val: '1' });
    expect(await incr('foo', '-2')).toMatchObject({ seq: 2, val: '-1' });
    expect(await incr('foo', '1')).toMatchObject({ seq: 3, val: '0' });
    // Exactly the size of the next message: `Nats-Incr: 1` and `{"val":"1"}`.
    expect(
      errorOf(
        await update({
          name: 'TEST',
          subjects: ['foo'],
          allow_msg_counter: true,
          max_msg_size: 37,
        }),
      ),
    ).toBeUndefined();
    expect(await incr('foo', '1')).toMatchObject({ seq: 4, val: '1' });
    expect(errorOf(await incr('foo', '10'))).toEqual(
      apiError(10054, 'message size exceeds maximum allowed'),
    );
  });

  // TestJetStreamAllowMsgCounterMaxPayloadAndSize, jetstream_test.go:20766-20820: the server's
  // max_payload of 1024 bounds the message with its new total (stream.go:5865-5877).
  it('refuses a total that would outgrow the max payload', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-counters-'));
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      maxPayload: 1024,
      jetstream: { storeDir },
      logger: silentLogger,
    });
    const probe = await JsProbe.connect(server.port, { headers: true });
    try {
      const request = (subject: string, by: string) =>
        probe.request(subject, '', { 'Nats-Incr': by });
      const stream = { name: 'TEST', subjects: ['foo'], allow_msg_counter: true };
      expect(errorOf(await probe.request('$JS.API.STREAM.CREATE.TEST', stream))).toBeUndefined();
      const tooLarge = '1'.repeat(500);
      const exceeds = apiError(10054, 'message size exceeds maximum allowed');
      expect(await request('foo', '1')).toMatchObject({ seq: 1, val: '1' });
      expect(errorOf(await request('foo', tooLarge))).toEqual(exceeds);
      expect(await request('foo', '-2')).toMatchObject({ seq: 2, val: '-1' });
      expect(errorOf(await request('foo', `-${tooLarge}`))).toEqual(exceeds);
      expect(await request('foo', '1')).toMatchObject({ seq: 3, val: '0' });
    } finally {
      probe.close();
      await server.close();
      await rm(storeDir, { recursive: true, force: true });
    }
  });

  // TestJetStreamAllowMsgCounterIncompatibleSettings, jetstream_test.go:20859-20896
  it('refuses counter streams with discard new, message TTLs or other retention', async () => {
    const base = { name: 'TEST', subjects: ['foo'], allow_msg_counter: true };
    expect(errorOf(await create({ ...base, discard: 'new' }))).toEqual(
      invalidConfig('counter stream cannot use discard new'),
    );
    expect(errorOf(await create({ ...base, allow_msg_ttl: true }))).toEqual(
      invalidConfig('counter stream cannot use message TTLs'),
    );
    // v2.14.2 stream.go:1755
    expect(errorOf(await create({ ...base, allow_msg_schedules: true }))).toEqual(
      invalidConfig('counter stream cannot use message schedules'),
    );
    for (const retention of ['interest', 'workqueue']) {
      expect(errorOf(await create({ ...base, retention }))).toEqual(
        invalidConfig('counter stream can only use limits retention'),
      );
    }
  });

  // TestJetStreamAllowMsgCounterMirror, jetstream_test.go:20899-20966
  it('refuses a counting mirror and copies counters verbatim into a plain one', async () => {
    await created({ name: 'O', subjects: ['foo'], allow_msg_counter: true });
    expect(
      errorOf(await create({ name: 'M', mirror: { name: 'O' }, allow_msg_counter: true })),
    ).toEqual(apiError(10173, 'stream mirrors can not also calculate counters'));
    await created({ name: 'M', mirror: { name: 'O' } });
    expect(await incr('foo', '1')).toMatchObject({ seq: 1, val: '1' });
    await until(async () => (await message('M', 1)) !== undefined);
    const copied = await message('M', 1);
    expect(copied?.data).toBe('{"val":"1"}');
    expect(copied?.headers).toContain('Nats-Incr: 1');
  });

  // TestJetStreamAllowMsgCounterSourceAggregates, jetstream_test.go:20969-21051
  it('aggregates the totals of counter sources', async () => {
    await created({ name: 'O1', subjects: ['foo.1'], allow_msg_counter: true });
    await created({ name: 'O2', subjects: ['foo.2'], allow_msg_counter: true });
    const transforms = [{ src: 'foo.*', dest: 'foo' }];
    await created({
      name: 'M',
      sources: [
        { name: 'O1', subject_transforms: transforms },
        { name: 'O2', subject_transforms: transforms },
      ],
      allow_msg_counter: true,
    });
    expect(await incr('foo.1', '1')).toMatchObject({ seq: 1, val: '1' });
    expect(await incr('foo.2', '2')).toMatchObject({ seq: 1, val: '2' });
    await until(async () => (await message('M', 2))?.data === '{"val":"3"}');
  });

  // TestJetStreamAllowMsgCounterSourceVerbatim, jetstream_test.go:21054-21151
  it('stores counter sources verbatim into a stream without counters', async () => {
    await created({ name: 'O1', subjects: ['foo.1'], allow_msg_counter: true });
    await created({ name: 'O2', subjects: ['foo.2'], allow_msg_counter: true });
    const transforms = [{ src: 'foo.*', dest: 'foo' }];
    await created({
      name: 'M',
      sources: [
        { name: 'O1', subject_transforms: transforms },
        { name: 'O2', subject_transforms: transforms },
      ],
    });
    await incr('foo.1', '1');
    await until(async () => (await message('M', 1))?.data === '{"val":"1"}');
    await incr('foo.2', '2');
    await until(async () => (await message('M', 2))?.data === '{"val":"2"}');
  });

  // TestJetStreamAllowMsgCounterSourceStartingAboveZero, jetstream_test.go:21154-21300
  it('counts what each source moved since its last copy, with Nats-Counter-Sources', async () => {
    await created({
      name: 'O1',
      subjects: ['foo.1'],
      allow_msg_counter: true,
      max_msgs_per_subject: 1,
    });
    await created({
      name: 'O2',
      subjects: ['foo.2'],
      allow_msg_counter: true,
      max_msgs_per_subject: 1,
    });
    for (let i = 1; i <= 5; i++) {
      expect(await incr('foo.1', '1')).toMatchObject({ seq: i });
      expect(await incr('foo.2', '2')).toMatchObject({ seq: i });
    }
    await created({ name: 'M', subjects: ['foo'], allow_msg_counter: true });
    expect(await incr('foo', '1')).toMatchObject({ seq: 1, val: '1' });
    const transforms = [{ src: 'foo.*', dest: 'foo' }];
    expect(
      errorOf(
        await update({
          name: 'M',
          subjects: ['foo'],
          allow_msg_counter: true,
          sources: [
            { name: 'O1', subject_transforms: transforms },
            { name: 'O2', subject_transforms: transforms },
          ],
        }),
      ),
    ).toBeUndefined();
    await until(async () => (await message('M', 3)) !== undefined);
    expect(await incr('foo', '1')).toMatchObject({ seq: 4, val: '17' });
    const fourth = await message('M', 4);
    expect(fourth?.data).toBe('{"val":"17"}');
    expect(fourth?.headers).toContain(
      'Nats-Counter-Sources: {"O1":{"foo.1":"5"},"O2":{"foo.2":"10"}}',
    );
    const incrOf = (headers = '') => /Nats-Incr: ([^\r]*)/.exec(headers)?.[1];
    const copies = [await message('M', 2), await message('M', 3)];
    expect(copies.map((m) => m?.subject)).toEqual(['foo', 'foo']);
    expect(copies.map((m) => incrOf(m?.headers)).sort()).toEqual(['10', '5']);
    expect(incrOf(fourth?.headers)).toBe('1');
  });
});
