/**
 * The consumer features of nats-server 2.10 on our server, over raw API requests (the official
 * client gates them on the INFO version): several filter subjects, consumer metadata, the
 * stream's consumer_limits, and the info's `ts`; and the validation 2.10 and 2.11 relaxed (a
 * filter outside the stream's subjects, backoff against max_deliver), which 2.9.10 refuses.
 * Expected behaviour is nats-server's at v2.10.0 / v2.11.0, cited by file:line in server/ at
 * that tag.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConsumerRequests,
  configOf,
  errorOf,
  useOurServer,
} from './jetstream-consumer-requests.js';
import type { ConsumerWire } from './jetstream-consumer-wire.js';

let wire: ConsumerWire;
let js: ConsumerRequests;
useOurServer((connected, requests) => {
  wire = connected;
  js = requests;
});

describe('filter_subjects (nats-server 2.10)', () => {
  it('delivers the messages of every filter in stream order and counts them pending', async () => {
    await js.stream({ name: 'F', subjects: ['f.>'] }, ['f.a', 'f.b', 'f.c', 'f.a', 'f.d', 'f.c']);
    const created = await js.consumer('F', {
      durable_name: 'AC',
      ack_policy: 'explicit',
      filter_subjects: ['f.a', 'f.c'],
    });
    expect(errorOf(created)).toBeUndefined();
    // The config says the filters back, and the pending count covers both (consumer.go:75).
    expect(configOf(created).filter_subjects).toEqual(['f.a', 'f.c']);
    expect(created.num_pending).toBe(4);
    expect(await js.pull('F', 'AC', 10)).toEqual(['f.a:m1', 'f.c:m3', 'f.a:m4', 'f.c:m6']);
    await wire.request('f.d', 'm7');
    await wire.request('f.c', 'm8');
    expect((await js.info('F', 'AC')).num_pending).toBe(1);
    expect(await js.pull('F', 'AC', 10)).toEqual(['f.c:m8']);
  });

  it('deliver last_per_subject takes the last message of each subject of every filter', async () => {
    await js.stream({ name: 'L', subjects: ['l.>'] }, ['l.a', 'l.b', 'l.a', 'l.c', 'l.b', 'l.x.1']);
    const created = await js.consumer('L', {
      durable_name: 'LPS',
      deliver_policy: 'last_per_subject',
      filter_subjects: ['l.a', 'l.b', 'l.x.>'],
    });
    expect(errorOf(created)).toBeUndefined();
    expect(created.num_pending).toBe(3);
    expect(await js.pull('L', 'LPS', 10)).toEqual(['l.a:m3', 'l.b:m5', 'l.x.1:m6']);
  });

  it('refuses both filter forms, an empty filter, a bad subject and overlapping filters', async () => {
    await js.stream({ name: 'V', subjects: ['v.>'] });
    const refusal = async (config: Record<string, unknown>) =>
      errorOf(await js.consumer('V', { durable_name: 'X', ...config }));
    // consumer.go:708-735 at v2.11.0, in this order.
    expect(await refusal({ filter_subject: 'v.a', filter_subjects: ['v.b'] })).toEqual({
      code: 400,
      err_code: 10136,
      description: 'consumer cannot have both FilterSubject and FilterSubjects specified',
    });
    expect(await refusal({ filter_subjects: ['v.a', ''] })).toEqual({
      code: 400,
      err_code: 10139,
      description: 'consumer filter in FilterSubjects cannot be empty',
    });
    expect(await refusal({ filter_subjects: ['v.a', 'v..b'] })).toEqual({
      code: 500,
      err_code: 10052,
      description: 'invalid subject',
    });
    expect(await refusal({ filter_subjects: ['v.a', 'v.*'] })).toEqual({
      code: 400,
      err_code: 10138,
      description: 'consumer subject filters cannot overlap',
    });
    expect(await refusal({ filter_subjects: ['v.*.x', 'v.a.*'] })).toMatchObject({
      err_code: 10138,
    });
    // deliver last_per_subject is happy with filter_subjects (consumer.go:770 at v2.11.0).
    expect(
      await refusal({ deliver_policy: 'last_per_subject', filter_subjects: ['v.a', 'v.b'] }),
    ).toBeUndefined();
  });

  it('the create subject with a filter token is refused for a config with several filters', async () => {
    await js.stream({ name: 'S', subjects: ['s.>'] });
    const subject = '$JS.API.CONSUMER.CREATE.S.C.s.a';
    // jetstream_api.go:3854 at v2.10.0: 10137, before the filter token is compared.
    expect(
      errorOf(await js.consumer('S', { name: 'C', filter_subjects: ['s.a'] }, subject)),
    ).toEqual({
      code: 400,
      err_code: 10137,
      description: 'consumer with multiple subject filters cannot use subject based API',
    });
    expect(
      errorOf(await js.consumer('S', { name: 'C', filter_subject: 's.b' }, subject)),
    ).toMatchObject({ err_code: 10131 });
    expect(errorOf(await js.consumer('S', { name: 'C', filter_subject: 's.a' }, subject))).toBe(
      undefined,
    );
  });

  it('a workqueue refuses consumers whose filters collide with another one, on create and update', async () => {
    await js.stream({ name: 'W', subjects: ['w.>'], retention: 'workqueue' }, [
      'w.a',
      'w.b',
      'w.c',
    ]);
    const wq = (name: string, filters: string[]) =>
      js.consumer('W', { durable_name: name, ack_policy: 'explicit', filter_subjects: filters });
    expect(errorOf(await wq('AB', ['w.a', 'w.b']))).toBeUndefined();
    // partitionUnique (stream.go:6047 at v2.11.0) compares every filter of every consumer.
    expect(errorOf(await wq('B', ['w.c', 'w.b']))).toMatchObject({ err_code: 10100 });
    expect(errorOf(await wq('STAR', ['w.*']))).toMatchObject({ err_code: 10100 });
    expect(errorOf(await wq('C', ['w.c']))).toBeUndefined();
    // An update is checked against the others too, not against itself (consumer.go:929).
    expect(errorOf(await wq('AB', ['w.a', 'w.c']))).toMatchObject({ err_code: 10100 });
    expect(errorOf(await wq('AB', ['w.a', 'w.b', 'w.d']))).toBeUndefined();
    expect(await js.pull('W', 'AB', 10)).toEqual(['w.a:m1', 'w.b:m2']);
    expect(await js.pull('W', 'C', 10)).toEqual(['w.c:m3']);
  });

  it('an update that changes the filters keeps the position and counts pending again', async () => {
    await js.stream({ name: 'U', subjects: ['u.>'] }, ['u.a', 'u.b', 'u.a']);
    expect(
      errorOf(await js.consumer('U', { durable_name: 'UP', filter_subjects: ['u.a'] })),
    ).toBeUndefined();
    expect(await js.pull('U', 'UP', 10)).toEqual(['u.a:m1', 'u.a:m3']);
    const updated = await js.consumer('U', { durable_name: 'UP', filter_subjects: ['u.a', 'u.b'] });
    expect(errorOf(updated)).toBeUndefined();
    // updateConfig (consumer.go:1808-1850 at v2.10.0) swaps the filters and recounts from sseq:
    // u.b's m2 lies behind the position and is not delivered.
    expect(updated.num_pending).toBe(0);
    await wire.request('u.b', 'm4');
    await wire.request('u.c', 'm5');
    expect((await js.info('U', 'UP')).num_pending).toBe(1);
    expect(await js.pull('U', 'UP', 10)).toEqual(['u.b:m4']);
    // Back to one filter_subject.
    const single = await js.consumer('U', { durable_name: 'UP', filter_subject: 'u.c' });
    expect(configOf(single).filter_subject).toBe('u.c');
    expect(configOf(single).filter_subjects).toBeUndefined();
  });

  it('interest retention keeps only what some consumer filter takes', async () => {
    await js.stream({ name: 'I', subjects: ['i.>'], retention: 'interest' });
    await js.consumer('I', {
      durable_name: 'IA',
      ack_policy: 'explicit',
      filter_subjects: ['i.a', 'i.b'],
    });
    for (const subject of ['i.a', 'i.c', 'i.b']) await wire.request(subject, 'x');
    const state = (await wire.request('$JS.API.STREAM.INFO.I')).state as Record<string, number>;
    expect(state.messages).toBe(2);
    expect(await js.pull('I', 'IA', 10)).toEqual(['i.a:x', 'i.b:x']);
    await wire.flush();
    const after = (await wire.request('$JS.API.STREAM.INFO.I')).state as Record<string, number>;
    expect(after.messages).toBe(0);
  });
});

describe('consumer metadata and info (nats-server 2.10)', () => {
  it('keeps metadata in the config and refuses more than 128KB of it', async () => {
    await js.stream({ name: 'M', subjects: ['m.>'] });
    const created = await js.consumer('M', { durable_name: 'MD', metadata: { owner: 'team-a' } });
    // Beside the API level keys of 2.11 (jetstream-consumer-api-level.test.ts).
    expect(configOf(created).metadata).toMatchObject({ owner: 'team-a' });
    expect(configOf(await js.info('M', 'MD')).metadata).toMatchObject({ owner: 'team-a' });
    // consumer.go:677-683 at v2.10.0: keys and values together, JSMaxMetadataLen 128 KiB.
    const big = { k: 'x'.repeat(128 * 1024) };
    expect(errorOf(await js.consumer('M', { durable_name: 'BIG', metadata: big }))).toEqual({
      code: 400,
      err_code: 10135,
      description: 'consumer metadata exceeds maximum size of 128KB',
    });
  });

  it('the info says when it was taken (ts)', async () => {
    await js.stream({ name: 'T', subjects: ['t.>'] });
    const before = Date.now();
    const created = await js.consumer('T', { durable_name: 'TS' });
    // ConsumerInfo.TimeStamp `json:"ts"` (consumer.go:59 at v2.10.0), set as the info is built.
    for (const answer of [created, await js.info('T', 'TS')]) {
      const ts = Date.parse(answer.ts as string);
      expect(ts).toBeGreaterThanOrEqual(before - 1);
      expect(ts).toBeLessThanOrEqual(Date.now() + 1);
    }
  });
});

describe("the stream's consumer_limits (nats-server 2.10)", () => {
  it('fill in what a consumer leaves unset and cap what it sets', async () => {
    await js.stream({
      name: 'CL',
      subjects: ['cl.>'],
      consumer_limits: { max_ack_pending: 50, inactive_threshold: 2_000_000_000 },
    });
    // setConsumerConfigDefaults (consumer.go:560-570 at v2.11.0): the stream's limits first.
    const defaulted = await js.consumer('CL', { durable_name: 'D', ack_policy: 'explicit' });
    expect(errorOf(defaulted)).toBeUndefined();
    expect(defaulted.config).toMatchObject({
      max_ack_pending: 50,
      inactive_threshold: 2_000_000_000,
    });
    const within = await js.consumer('CL', {
      durable_name: 'W',
      ack_policy: 'explicit',
      max_ack_pending: 10,
      inactive_threshold: 1_000_000_000,
    });
    expect(within.config).toMatchObject({ max_ack_pending: 10, inactive_threshold: 1_000_000_000 });
    // checkConsumerCfg (consumer.go:554-559 at v2.10.0).
    expect(
      errorOf(
        await js.consumer('CL', { durable_name: 'X', ack_policy: 'explicit', max_ack_pending: 51 }),
      ),
    ).toEqual({
      code: 400,
      err_code: 10121,
      description: 'consumer max ack pending exceeds system limit of 50',
    });
    expect(
      errorOf(await js.consumer('CL', { durable_name: 'X', inactive_threshold: 3_000_000_000 })),
    ).toEqual({
      code: 400,
      err_code: 10153,
      description: 'consumer inactive threshold exceeds system limit of 2s',
    });
  });
});

describe('a pedantic create (nats-server 2.11)', () => {
  it('is refused where a default or a stream limit would change what it asked for', async () => {
    await js.stream({
      name: 'PD',
      subjects: ['pd.>'],
      consumer_limits: { max_ack_pending: 50, inactive_threshold: 2_000_000_000 },
    });
    const create = (config: Record<string, unknown>) =>
      wire.request('$JS.API.CONSUMER.CREATE.PD.X', {
        stream_name: 'PD',
        config: { durable_name: 'X', ack_policy: 'explicit', ...config },
        pedantic: true,
      });
    // setConsumerConfigDefaults (consumer.go:552-571 at v2.11.0).
    expect(errorOf(await create({ backoff: [1_000_000_000] }))).toEqual({
      code: 400,
      err_code: 10157,
      description: 'pedantic mode: first backoff value has to equal batch AckWait',
    });
    expect(errorOf(await create({ inactive_threshold: 1_000_000_000 }))).toMatchObject({
      description: "pedantic mode: max_ack_pending must be set if it's configured in stream limits",
    });
    expect(errorOf(await create({ max_ack_pending: 5 }))).toMatchObject({
      description:
        "pedantic mode: inactive_threshold must be set if it's configured in stream limits",
    });
    const exact = await create({
      max_ack_pending: 5,
      inactive_threshold: 1_000_000_000,
      ack_wait: 1_000_000_000,
      backoff: [1_000_000_000],
      max_deliver: 3,
    });
    expect(errorOf(exact)).toBeUndefined();
  });
});

const SECOND = 1_000_000_000;

describe('consumer filters outside the stream (nats-server 2.10)', () => {
  it('accepts a filter the stream does not cover, with nothing pending on it', async () => {
    await js.stream({ name: 'ORIGIN', subjects: ['origin.*'] }, ['origin.a', 'origin.b']);
    // checkConsumerCfg has no subset check at v2.11.0 (consumer.go:706-735): 10093 is defined
    // but never returned; 2.9.10 refused this (consumer.go:468 at v2.9.10).
    const outside = await js.consumer('ORIGIN', { durable_name: 'F', filter_subject: 'other.a' });
    expect(errorOf(outside)).toBeUndefined();
    expect(configOf(outside).filter_subject).toBe('other.a');
    expect(outside.num_pending).toBe(0);
    const many = await js.consumer('ORIGIN', {
      durable_name: 'M',
      filter_subjects: ['origin.a', 'elsewhere.>'],
    });
    expect(errorOf(many)).toBeUndefined();
    expect(many.num_pending).toBe(1);
    expect(await js.pull('ORIGIN', 'M', 10)).toEqual(['origin.a:m1']);
  });

  it('still refuses a single filter that is not a valid subject (consumer.go:712)', async () => {
    await js.stream({ name: 'V', subjects: ['v.>'] });
    const bad = await js.consumer('V', { durable_name: 'X', filter_subject: 'v..b' });
    expect(errorOf(bad)).toEqual({ code: 500, err_code: 10052, description: 'invalid subject' });
  });
});

describe('backoff against max_deliver (nats-server 2.11)', () => {
  const steps = [SECOND, 2 * SECOND, 3 * SECOND];

  it('accepts as many steps as deliveries, and any number with max_deliver unlimited', async () => {
    await js.stream({ name: 'B', subjects: ['b.>'] });
    // consumer.go:627: refused only when max_deliver != -1 and len(backoff) > max_deliver.
    const equal = await js.consumer('B', {
      durable_name: 'EQ',
      ack_policy: 'explicit',
      backoff: steps,
      max_deliver: 3,
    });
    expect(errorOf(equal)).toBeUndefined();
    expect(configOf(equal)).toMatchObject({ max_deliver: 3, ack_wait: SECOND });
    const unlimited = await js.consumer('B', {
      durable_name: 'UN',
      ack_policy: 'explicit',
      backoff: steps,
    });
    expect(errorOf(unlimited)).toBeUndefined();
    expect(configOf(unlimited)).toMatchObject({ max_deliver: -1, backoff: steps });
  });

  it('refuses more steps than deliveries, on create and on update (consumer.go:2127)', async () => {
    await js.stream({ name: 'B', subjects: ['b.>'] });
    const refused = { code: 400, err_code: 10116 };
    const tooMany = await js.consumer('B', {
      durable_name: 'TM',
      ack_policy: 'explicit',
      backoff: steps,
      max_deliver: 2,
    });
    expect(errorOf(tooMany)).toMatchObject(refused);
    const base = { durable_name: 'U', ack_policy: 'explicit', max_deliver: 3 };
    expect(errorOf(await js.consumer('B', base))).toBeUndefined();
    const grown = await wire.request('$JS.API.CONSUMER.CREATE.B.U', {
      stream_name: 'B',
      config: { ...base, backoff: [...steps, 4 * SECOND] },
      action: 'update',
    });
    expect(errorOf(grown)).toMatchObject(refused);
    const fitting = await wire.request('$JS.API.CONSUMER.CREATE.B.U', {
      stream_name: 'B',
      config: { ...base, backoff: steps },
      action: 'update',
    });
    expect(errorOf(fitting)).toBeUndefined();
  });
});
