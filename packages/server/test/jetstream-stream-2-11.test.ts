/**
 * Per-message TTLs of nats-server 2.11 on our server: `allow_msg_ttl`, the `Nats-TTL` header,
 * expiry (also after a restart), `never` sparing a message from max_age, and subject delete
 * markers (`subject_delete_marker_ttl`). Only nats-server 2.9.10 runs here, so the expected
 * behaviour is nats-server's source at v2.11.0, cited by file:line in server/ at that tag.
 */
import { describe, expect, it } from 'vitest';
import { checkStreamConfig } from '../src/jetstream/stream/stream-config.js';
import { errorOf, stateOf, until, useStreamServer } from './jetstream-stream-harness.js';

const js = useStreamServer();
const { create, created, update, info, message, restart } = js;

const publish = (subject: string, body: string, ttl?: string) =>
  js.probe.request(subject, body, ttl === undefined ? undefined : { 'Nats-TTL': ttl });
const messages = async (stream: string) => stateOf(await info(stream)).messages as number;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('stream config (nats-server 2.11)', () => {
  it('echoes allow_msg_ttl and subject_delete_marker_ttl and checks them', async () => {
    const answer = await created({
      name: 'T',
      allow_msg_ttl: true,
      subject_delete_marker_ttl: 2_000_000_000,
    });
    // stream.go:105 `json:"allow_msg_ttl"`, :109 `json:"subject_delete_marker_ttl,omitempty"`
    expect(answer.config).toMatchObject({
      allow_msg_ttl: true,
      subject_delete_marker_ttl: 2_000_000_000,
    });
    const invalid = (err: string) => ({ code: 500, err_code: 10052, description: err });
    // stream.go:1387-1396; since 2.11.4 the texts read "subject delete marker" and only a
    // pedantic request is refused (jetstream-stream-update-2-12.test.ts has the rest).
    expect(
      errorOf(
        await create({ name: 'A', subject_delete_marker_ttl: 2_000_000_000, pedantic: true }),
      ),
    ).toEqual(invalid('subject delete marker cannot be set if message TTLs are disabled'));
    expect(
      errorOf(
        await create({ name: 'B', allow_msg_ttl: true, subject_delete_marker_ttl: 500_000_000 }),
      ),
    ).toEqual(invalid('subject delete marker TTL must be at least 1 second'));
    // stream.go:1440-1445
    expect(
      errorOf(
        await create({
          name: 'C',
          mirror: { name: 'T' },
          allow_msg_ttl: true,
          subject_delete_marker_ttl: 2_000_000_000,
        }),
      ),
    ).toEqual(invalid('subject delete markers forbidden on mirrors'));
    // stream.go:1833-1835; since 2.11.4 only turning TTLs off is refused (v2.12.0 stream.go:2143).
    expect(errorOf(await update({ name: 'T', allow_msg_ttl: false }))).toEqual(
      invalid('message TTL status can not be disabled'),
    );
  });
});

describe('stream subjects (nats-server 2.11, checked as a server advertising it would)', () => {
  const problem = (config: Record<string, unknown>, version: string) => {
    try {
      checkStreamConfig({ name: 'S', ...config }, () => undefined, version);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('allows the API and everything only without acks', () => {
    // v2.11.0 stream.go:1625-1656
    expect(problem({ subjects: ['>'] }, '2.11.0')).toBe(
      'capturing all subjects requires no-ack to be true',
    );
    expect(problem({ subjects: ['>'], no_ack: true }, '2.11.0')).toBeUndefined();
    expect(problem({ subjects: ['$JS.API.>'] }, '2.11.0')).toBe(
      'subjects that overlap with jetstream api require no-ack to be true',
    );
    expect(problem({ subjects: ['$JSC.x'] }, '2.11.0')).toBe(
      'subjects that overlap with jetstream api require no-ack to be true',
    );
    expect(problem({ subjects: ['$JS.EVENT.>'] }, '2.11.0')).toBeUndefined();
    expect(problem({ subjects: ['$SYS.REQ.x'] }, '2.11.0')).toBe(
      'subjects that overlap with system api require no-ack to be true',
    );
    expect(problem({ subjects: ['$SYS.ACCOUNT.x'] }, '2.11.0')).toBeUndefined();
    expect(problem({ subjects: ['a..b', 'a..b'] }, '2.11.0')).toBe('invalid subject');
    // Before 2.11 (v2.10.0 stream.go:1470-1488): the API is refused outright.
    expect(problem({ subjects: ['$JS.API.>'], no_ack: true }, '2.10.0')).toBe(
      'subjects overlap with jetstream api',
    );
    expect(problem({ subjects: ['>'] }, '2.10.0')).toBeUndefined();
  });
});

describe('pedantic requests (nats-server 2.11)', () => {
  it('are refused where the server would otherwise choose for them', async () => {
    // jetstream_errors_generated.go NewJSPedanticError: "pedantic mode: {err}", and the
    // texts of stream.go start with "pedantic mode:" themselves.
    const pedantic = (description: string) => ({ code: 400, err_code: 10157, description });
    // stream.go:1346-1349: a max_age under the 2 minute default window
    expect(errorOf(await create({ name: 'P1', max_age: 60_000_000_000, pedantic: true }))).toEqual(
      pedantic('pedantic mode: pedantic mode: duplicate window cannot be bigger than max age'),
    );
    expect(
      errorOf(
        await create({
          name: 'P2',
          max_age: 60_000_000_000,
          duplicate_window: 1_000_000_000,
          pedantic: true,
        }),
      ),
    ).toBeUndefined();
    // stream.go:1481-1483: a mirror must ask for its origin's direct gets
    await created({ name: 'DIRECT', allow_direct: true });
    expect(
      errorOf(await create({ name: 'P3', mirror: { name: 'DIRECT' }, pedantic: true })),
    ).toEqual(pedantic('pedantic mode: origin stream has direct get set, mirror has it disabled'));
    // stream.go:1715-1718
    expect(
      errorOf(
        await create({ name: 'P4', subjects: ['p4'], republish: { dest: 'out' }, pedantic: true }),
      ),
    ).toEqual(pedantic('pedantic mode: pedantic mode: republish source can not be empty'));
    // Not pedantic: defaulted as before, and `pedantic` is not part of the config.
    const relaxed = await created({ name: 'P5', max_age: 60_000_000_000, pedantic: false });
    expect(relaxed.config).not.toHaveProperty('pedantic');
    expect((relaxed.config as { duplicate_window: number }).duplicate_window).toBe(60_000_000_000);
  });
});

describe('the Nats-TTL header', () => {
  it('is refused on a stream without TTLs, and when it is not a valid TTL', async () => {
    await created({ name: 'OFF', subjects: ['off'] });
    await created({ name: 'ON', subjects: ['on'], allow_msg_ttl: true });
    // stream.go:4884-4897 JSMessageTTLDisabledErr
    expect(errorOf(await publish('off', 'x', '5s'))).toEqual({
      code: 400,
      err_code: 10166,
      description: 'per-message TTL is disabled',
    });
    // stream.go:4307-4326: under a second (`0` is Go's zero duration), negative, or neither a
    // duration nor whole seconds.
    for (const bad of ['500ms', '0s', '0', '-5', 'soon']) {
      expect(errorOf(await publish('on', 'x', bad))).toEqual({
        code: 400,
        err_code: 10165,
        description: 'invalid per-message TTL',
      });
    }
    for (const good of ['1h', '30', 'never', 'NEVER', '90m']) {
      expect(errorOf(await publish('on', 'x', good))).toBeUndefined();
    }
    expect(await messages('ON')).toBe(5);
    expect(await messages('OFF')).toBe(0);
  });

  it('removes a message when its TTL is up, in memory and on file', async () => {
    for (const storage of ['memory', 'file']) {
      const name = `E${storage}`;
      await created({ name, subjects: [`e.${storage}`], storage, allow_msg_ttl: true });
      await publish(`e.${storage}`, 'short', '2s');
      await publish(`e.${storage}`, 'kept');
      expect(await messages(name)).toBe(2);
    }
    await sleep(600);
    expect(await messages('Ememory')).toBe(2);
    await until(async () => (await messages('Ememory')) === 1 && (await messages('Efile')) === 1);
    expect((await message('Efile', 2))?.data).toBe('kept');
    expect(await message('Efile', 1)).toBeUndefined();
  });

  it('still expires messages after a restart, and `never` still spares one from max_age', async () => {
    await created({
      name: 'R',
      subjects: ['r.>'],
      allow_msg_ttl: true,
      max_age: 5_000_000_000,
    });
    await publish('r.ttl', 'three seconds', '3');
    await publish('r.never', 'forever', 'never');
    await publish('r.plain', 'max age');
    await restart();
    expect(await messages('R')).toBe(3);
    // The TTL comes from the stored header (filestore.go keeps its own index; ours reads it).
    await until(async () => (await messages('R')) === 2, 6_000);
    expect(await message('R', 1)).toBeUndefined();
    // memstore.go:1047-1053 / filestore.go:5571-5577: max_age passes over `never`.
    await until(async () => (await messages('R')) === 1, 6_000);
    expect((await message('R', 2))?.data).toBe('forever');
    await restart();
    await sleep(300);
    expect((await message('R', 2))?.data).toBe('forever');
  });
});

describe('Nats-Expected-Last-Subject-Sequence-Subject', () => {
  it('checks the last sequence of the subject (or filter) it names', async () => {
    await created({ name: 'LS', subjects: ['ls.>'] });
    await publish('ls.a', 'a1');
    await publish('ls.b', 'b1');
    const guarded = (subject: string, expected: string, checked: string) =>
      js.probe.request(subject, 'x', {
        'Nats-Expected-Last-Subject-Sequence': expected,
        'Nats-Expected-Last-Subject-Sequence-Subject': checked,
      });
    // v2.11.0 stream.go:4918-4948: the named subject's last sequence, here 1 (ls.a), not 2.
    expect((await guarded('ls.c', '1', 'ls.a')).seq).toBe(3);
    expect(errorOf(await guarded('ls.c', '1', 'ls.*'))).toEqual({
      code: 400,
      err_code: 10071,
      description: 'wrong last sequence: 3',
    });
  });
});

describe('subject delete markers', () => {
  it('mark a subject whose last message max_age removed, and go when their TTL is up', async () => {
    await created({
      name: 'D',
      subjects: ['d.>'],
      allow_msg_ttl: true,
      max_age: 500_000_000,
      subject_delete_marker_ttl: 1_000_000_000,
    });
    await publish('d.a', 'a1');
    await publish('d.a', 'a2');
    await publish('d.b', 'b1');
    // The three messages went (a1 and b1 on their own, a2 last) and two markers came.
    await until(async () => {
      const state = stateOf(await info('D'));
      return state.messages === 2 && state.last_seq === 5;
    });
    // filestore.go:4697-4701 / memstore.go:986-1005: one marker a subject, after its last went.
    const markers = [await message('D', 4), await message('D', 5)];
    const expected = (subject: string) => ({
      subject,
      data: '',
      headers:
        'NATS/1.0\r\nNats-Marker-Reason: MaxAge\r\nNats-TTL: 1s\r\n' +
        `Nats-Expected-Last-Subject-Sequence: 0\r\nNats-Expected-Last-Subject-Sequence-Subject: ${subject}\r\n\r\n`,
    });
    expect(markers).toEqual([expected('d.a'), expected('d.b')]);
    // A marker removed by its TTL or max_age leaves no marker of its own.
    await until(async () => (await messages('D')) === 0);
    await sleep(700);
    expect(stateOf(await info('D'))).toMatchObject({ messages: 0, last_seq: 5 });
  });

  it('are not written when the subject got a new message, or for other removals', async () => {
    await created({
      name: 'N',
      subjects: ['n.>'],
      allow_msg_ttl: true,
      max_age: 600_000_000,
      max_msgs_per_subject: 1,
      subject_delete_marker_ttl: 1_000_000_000,
    });
    await publish('n.a', 'old');
    // Replaced by the per-subject limit and purged: 2.11.0 writes no marker for either
    // (memstore.go:1095-1113 forces noMarkers; limits remove without a reason).
    await publish('n.a', 'new');
    await js.probe.request('$JS.API.STREAM.PURGE.N', { filter: 'n.a' });
    await sleep(900);
    expect(stateOf(await info('N'))).toMatchObject({ messages: 0, last_seq: 2 });
  });
});
