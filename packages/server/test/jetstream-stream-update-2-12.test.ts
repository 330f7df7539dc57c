/**
 * Two stream config updates nats-server 2.12 allows that 2.11.0 refused: setting
 * `subject_delete_marker_ttl` without `allow_msg_ttl` (or roll-ups) turns those on unless the
 * request is `pedantic`, and removing `mirror` promotes a mirror to a normal stream. nats.c 3.14's
 * KeyValueLimitMarkerTTL and JetStreamMirrorsRemove rely on both. Only nats-server 2.9.10 runs
 * here, so the expected answers are nats-server's source at v2.12.0 (server/, file:line).
 */
import { describe, expect, it } from 'vitest';
import { configOf, errorOf, stateOf, until, useStreamServer } from './jetstream-stream-harness.js';

const js = useStreamServer();
const { create, created, update, info } = js;
const invalid = (err: string) => ({ code: 500, err_code: 10052, description: err });
const SECOND = 1_000_000_000;

// TestJetStreamCreateStreamWithSubjectDeleteMarkersOptions, jetstream_test.go:20007
describe('subject delete marker options (checkStreamCfg, stream.go:1644-1662)', () => {
  it('refuses a pedantic create that lacks message TTLs or roll-ups, in order', async () => {
    const base = { name: 'PEDANTIC', subjects: ['pedantic'], pedantic: true };
    const refusal = async (config: object) => errorOf(await create({ ...base, ...config }));
    // (A negative TTL, the test's first case, our request schema refuses before these checks.)
    expect(await refusal({ subject_delete_marker_ttl: 1_000_000 })).toEqual(
      invalid('subject delete marker TTL must be at least 1 second'),
    );
    expect(await refusal({ subject_delete_marker_ttl: SECOND })).toEqual(
      invalid('subject delete marker cannot be set if message TTLs are disabled'),
    );
    expect(await refusal({ subject_delete_marker_ttl: SECOND, allow_msg_ttl: true })).toEqual(
      invalid('subject delete marker cannot be set if roll-ups are disabled'),
    );
    const complete = { subject_delete_marker_ttl: SECOND, allow_msg_ttl: true };
    expect(await refusal({ ...complete, allow_rollup_hdrs: true, deny_purge: true })).toEqual(
      invalid('roll-ups require the purge permission'),
    );
    await created({ ...base, ...complete, allow_rollup_hdrs: true });
  });

  it('turns on message TTLs and roll-ups for a create that is not pedantic', async () => {
    const answer = await created({
      name: 'AUTO',
      subjects: ['auto'],
      subject_delete_marker_ttl: SECOND,
    });
    expect(configOf(answer)).toMatchObject({
      subject_delete_marker_ttl: SECOND,
      allow_msg_ttl: true,
      allow_rollup_hdrs: true,
      deny_purge: false,
    });
  });

  it('turns them on for an update, which may then not turn TTLs off (stream.go:2142-2145)', async () => {
    const plain = { name: 'UPDATE', subjects: ['update'] };
    expect(configOf(await created(plain))).toMatchObject({
      allow_msg_ttl: false,
      allow_rollup_hdrs: false,
    });
    const pedantic = await update({ ...plain, subject_delete_marker_ttl: SECOND, pedantic: true });
    expect(errorOf(pedantic)).toEqual(
      invalid('subject delete marker cannot be set if message TTLs are disabled'),
    );
    const updated = await update({ ...plain, subject_delete_marker_ttl: SECOND });
    expect(errorOf(updated)).toBeUndefined();
    expect(configOf(updated)).toMatchObject({
      subject_delete_marker_ttl: SECOND,
      allow_msg_ttl: true,
      allow_rollup_hdrs: true,
      deny_purge: false,
    });
    // The stream now takes per-message TTLs: a message with one goes when it is up.
    const ack = await js.probe.request('update', 'short-lived', { 'Nats-TTL': '1s' });
    expect(errorOf(ack)).toBeUndefined();
    await until(async () => stateOf(await info('UPDATE')).messages === 0, 5_000);
    expect(errorOf(await update({ ...plain, allow_rollup_hdrs: true, pedantic: true }))).toEqual(
      invalid('message TTL status can not be disabled'),
    );
  });
});

// TestJetStreamMirrorUpdatesNotSupported, jetstream_test.go:14410; configUpdateCheck,
// stream.go:2125-2129 and the promotion in updateWithAdvisory, stream.go:2293-2297.
describe('mirror updates', () => {
  it('promote a mirror to a normal stream when the mirror is removed', async () => {
    await created({ name: 'SOURCE', subjects: ['foo'] });
    await created({ name: 'M', mirror: { name: 'SOURCE' } });
    for (let i = 0; i < 10; i++) await js.probe.request('foo', `m${i}`);
    await until(async () => stateOf(await info('M')).messages === 10);
    // As nats.c's JetStreamMirrorsRemove: the origin goes, then the mirror takes its subject.
    await js.probe.request('$JS.API.STREAM.DELETE.SOURCE');
    const promoted = await update({ name: 'M', subjects: ['foo'] });
    expect(errorOf(promoted)).toBeUndefined();
    expect(configOf(promoted).mirror).toBeUndefined();
    expect(configOf(promoted).subjects).toEqual(['foo']);
    expect(await js.probe.request('foo', 'own')).toEqual({ stream: 'M', seq: 11 });
    const promotedInfo = await info('M');
    expect(promotedInfo.mirror).toBeUndefined();
    expect(stateOf(promotedInfo)).toMatchObject({ messages: 11, last_seq: 11 });
  });

  it('still refuse a changed or an added mirror', async () => {
    await created({ name: 'SOURCE', subjects: ['foo'] });
    await created({ name: 'OTHER', subjects: ['bar'] });
    await created({ name: 'M', mirror: { name: 'SOURCE' } });
    const notUpdatable = { code: 400, err_code: 10055, description: expect.any(String) };
    expect(errorOf(await update({ name: 'M', mirror: { name: 'OTHER' } }))).toEqual(notUpdatable);
    expect(errorOf(await update({ name: 'OTHER', mirror: { name: 'SOURCE' } }))).toEqual(
      notUpdatable,
    );
  });
});
