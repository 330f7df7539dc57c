/**
 * Message schedules of nats-server 2.12 (`@at`) and 2.14 (`@every`, cron, `@hourly`...; ADR-51)
 * on our server: `allow_msg_schedules`, the publish checks of every schedule header, the message
 * a schedule stores on its target with the headers nats-server gives it, and schedules that
 * outlive a restart of a file-backed server and fire once around it. Only nats-server 2.9.10
 * runs here, so each test follows the nats-server test named in it (server/ at v2.14.2).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import { nextFiring, parseRfc3339 } from '../src/jetstream/stream/schedule-pattern.js';
import {
  type Answer,
  errorOf,
  stateOf,
  until,
  useStreamServer,
} from './jetstream-stream-harness.js';
import { JsProbe } from './js-probe.js';

const js = useStreamServer();
const { create, created, update, message, info } = js;

const publish = (subject: string, headers: Record<string, string>, body = '') =>
  js.probe.request(subject, body, headers);
const apiError = (err_code: number, description: string, code = 400) => ({
  code,
  err_code,
  description,
});
const invalidConfig = (description: string) => apiError(10052, description, 500);
const disabled = apiError(10188, 'message schedules is disabled');
const patternInvalid = apiError(10189, 'message schedules pattern is invalid');
const targetInvalid = apiError(10190, 'message schedules target is invalid');
const ttlInvalid = apiError(10191, 'message schedules invalid per-message TTL');
const rollupInvalid = apiError(10192, 'message schedules invalid rollup');
const sourceInvalid = apiError(10203, 'message schedules source is invalid');
const schedulerInvalid = apiError(10212, 'message schedules invalid scheduler');
const zoneInvalid = apiError(10223, 'message schedules time zone is invalid');
const ttlDisabled = apiError(10166, 'per-message TTL is disabled');
const at = (inMs: number) => `@at ${new Date(Date.now() + inMs).toISOString()}`;
const headersOf = (text = '') =>
  Object.fromEntries(
    text
      .split('\r\n')
      .slice(1)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('schedule config', () => {
  // TestJetStreamScheduledMirrorOrSource, jetstream_test.go:21953 (v2.14.2)
  it('refuses schedules on mirrors and on streams with sources', async () => {
    expect(
      errorOf(await create({ name: 'M', mirror: { name: 'O' }, allow_msg_schedules: true })),
    ).toEqual(apiError(10186, 'stream mirrors can not also schedule messages'));
    expect(
      errorOf(await create({ name: 'S', sources: [{ name: 'O' }], allow_msg_schedules: true })),
    ).toEqual(apiError(10187, 'stream source can not also schedule messages'));
  });

  // TestJetStreamScheduledMessageIncompatibleSettings, jetstream_test.go:22456 (v2.14.2)
  it('refuses discard new, needs roll-ups, and cannot be turned off', async () => {
    const base = { name: 'TEST', subjects: ['foo'], allow_msg_schedules: true };
    expect(errorOf(await create({ ...base, discard: 'new' }))).toEqual(
      invalidConfig('message scheduling cannot use discard new'),
    );
    expect(errorOf(await create({ ...base, allow_rollup_hdrs: false, pedantic: true }))).toEqual(
      invalidConfig('message scheduling cannot be set if roll-ups are disabled'),
    );
    // stream.go:1797-1802: without pedantic, roll-ups are turned on.
    const answer = await created({ ...base, deny_purge: true });
    expect(answer.config).toMatchObject({
      allow_msg_schedules: true,
      allow_rollup_hdrs: true,
      deny_purge: false,
    });
    // TestJetStreamClusterScheduledDelayedMessage's end, jetstream_cluster_1_test.go:9830
    expect(errorOf(await update({ ...base, allow_msg_schedules: false }))).toEqual(
      invalidConfig('message schedules can not be disabled'),
    );
  });
});

describe('schedule headers on publish', () => {
  // TestJetStreamClusterScheduledDelayedMessage, jetstream_cluster_1_test.go:9635-9760 (v2.14.2)
  it('refuses each bad schedule header with nats-server error', async () => {
    await created({ name: 'OFF', subjects: ['disabled'] });
    expect(
      errorOf(await publish('disabled', { 'Nats-Schedule': '@at 1970-01-01T00:00:00Z' })),
    ).toEqual(disabled);
    expect(errorOf(await publish('disabled', { 'Nats-Schedule': 'disabled' }))).toEqual(disabled);
    // TestJetStreamScheduledPurgeHeadersRequiresSchedulingEnabled, jetstream_test.go:22487
    await publish('disabled', {});
    expect(
      errorOf(
        await publish('disabled', { 'Nats-Schedule-Next': 'purge', 'Nats-Scheduler': 'other' }),
      ),
    ).toEqual(disabled);

    await created({ name: 'NOTTL', subjects: ['nottl'], allow_msg_schedules: true });
    expect(
      errorOf(
        await publish('nottl', {
          'Nats-Schedule': '@at 1970-01-01T00:00:00Z',
          'Nats-Schedule-TTL': '1s',
        }),
      ),
    ).toEqual(ttlDisabled);

    await created({
      name: 'ON',
      subjects: ['foo.*'],
      allow_msg_schedules: true,
      allow_msg_ttl: true,
    });
    const past = '@at 1970-01-01T00:00:00Z';
    const cases: [Record<string, string>, object][] = [
      [{ 'Nats-Schedule': 'invalid' }, patternInvalid],
      [{ 'Nats-Schedule': '@at tomorrow' }, patternInvalid],
      [{ 'Nats-Schedule': '@at 2025-02-30T00:00:00Z' }, patternInvalid],
      [{ 'Nats-Schedule': '@every 999ms' }, patternInvalid],
      [{ 'Nats-Schedule': '@every soon' }, patternInvalid],
      [{ 'Nats-Schedule': '* * * * *' }, patternInvalid],
      [{ 'Nats-Schedule': '60 * * * * *' }, patternInvalid],
      [{ 'Nats-Schedule': '0 * * * * *', 'Nats-Schedule-Time-Zone': 'Not/A/Zone' }, zoneInvalid],
      [{ 'Nats-Schedule': '0 * * * * *', 'Nats-Schedule-Time-Zone': '' }, zoneInvalid],
      [{ 'Nats-Schedule': 'invalid', 'Nats-Schedule-Time-Zone': 'UTC' }, patternInvalid],
      // Time zones are for cron only (scheduler.go:318, :327).
      [{ 'Nats-Schedule': past, 'Nats-Schedule-Time-Zone': 'UTC' }, patternInvalid],
      [{ 'Nats-Schedule': past }, targetInvalid],
      [{ 'Nats-Schedule': past, 'Nats-Schedule-Target': 'not.matching' }, targetInvalid],
      [{ 'Nats-Schedule': past, 'Nats-Schedule-Target': 'foo.*' }, targetInvalid],
      [{ 'Nats-Schedule': past, 'Nats-Schedule-Target': 'foo.invalid' }, targetInvalid],
      [
        { 'Nats-Schedule': past, 'Nats-Schedule-Target': 'foo.publish', 'Nats-Schedule-TTL': 'x' },
        ttlInvalid,
      ],
      [
        {
          'Nats-Schedule': past,
          'Nats-Schedule-Target': 'foo.publish',
          'Nats-Schedule-TTL': '1s',
          'Nats-Rollup': 'all',
        },
        rollupInvalid,
      ],
      [
        {
          'Nats-Schedule': past,
          'Nats-Schedule-Target': 'foo.publish',
          'Nats-Schedule-Rollup': 'all',
        },
        rollupInvalid,
      ],
      // jetstream_cluster_1_test.go:9866-9881: the source may not be the schedule, the target,
      // a wildcard, or outside the stream.
      ...['foo.invalid', 'foo.publish', 'foo.*', 'foo.>', 'bar'].map(
        (source): [Record<string, string>, object] => [
          {
            'Nats-Schedule': past,
            'Nats-Schedule-Target': 'foo.publish',
            'Nats-Schedule-Source': source,
          },
          sourceInvalid,
        ],
      ),
      // stream.go:6534-6594: Nats-Schedule-Next and Nats-Scheduler from a client.
      [
        { 'Nats-Schedule-Next': '2030-01-01T00:00:00Z', 'Nats-Scheduler': 'foo.x' },
        schedulerInvalid,
      ],
      [{ 'Nats-Schedule-Next': 'purge' }, schedulerInvalid],
      [{ 'Nats-Schedule-Next': 'purge', 'Nats-Scheduler': 'foo.invalid' }, schedulerInvalid],
      [{ 'Nats-Scheduler': 'foo.x' }, schedulerInvalid],
    ];
    for (const [headers, expected] of cases) {
      expect({ headers, error: errorOf(await publish('foo.invalid', headers)) }).toEqual({
        headers,
        error: expected,
      });
    }
    // A purge may only name a schedule's subject.
    await publish('foo.plain', {});
    expect(
      errorOf(
        await publish('foo.purger', {
          'Nats-Schedule-Next': 'purge',
          'Nats-Scheduler': 'foo.plain',
        }),
      ),
    ).toEqual(schedulerInvalid);
    // Nothing refused was stored.
    expect(stateOf(await info('ON'))).toMatchObject({ messages: 1, last_seq: 1 });
  });
});

describe('@at schedules (nats-server 2.12)', () => {
  // TestJetStreamClusterScheduledDelayedMessage, jetstream_cluster_1_test.go:9760-9820 (v2.14.2)
  it.each(['file', 'memory'])(
    'replaces a schedule on its subject and fires its message once, with its headers (%s)',
    async (storage) => {
      await created({
        name: 'S',
        subjects: ['foo.*'],
        storage,
        allow_msg_schedules: true,
        allow_msg_ttl: true,
      });
      const far = await publish('foo.schedule', {
        'Nats-Schedule': at(3_600_000),
        'Nats-Schedule-Target': 'foo.publish',
        'Nats-Schedule-TTL': '1s',
        'Nats-Rollup': 'sub',
      });
      expect(far).toEqual({ stream: 'S', seq: 1 });
      const soon = await publish(
        'foo.schedule',
        {
          'Nats-Schedule': at(1_000),
          'Nats-Schedule-Target': 'foo.publish',
          'Nats-Schedule-TTL': '1s',
          'Nats-Expected-Stream': 'S',
          'Nats-Expected-Last-Sequence': '1',
          'Nats-Expected-Last-Subject-Sequence': '1',
          'Nats-Msg-Id': 'X',
          'Nats-TTL': '60s',
          Header: 'Value',
        },
        'hello',
      );
      expect(soon).toEqual({ stream: 'S', seq: 2 });
      // The rollup added to the second schedule replaced the first.
      expect(stateOf(await info('S'))).toMatchObject({ messages: 1, last_seq: 2 });
      expect(headersOf((await message('S', 2))?.headers)).toMatchObject({ 'Nats-Rollup': 'sub' });

      await until(async () => stateOf(await info('S')).last_seq === 3, 3_000);
      // Storing it purged the schedule.
      expect(stateOf(await info('S'))).toMatchObject({ messages: 1, first_seq: 3, last_seq: 3 });
      const fired = await message('S', 3);
      expect(fired?.subject).toBe('foo.publish');
      expect(fired?.data).toBe('hello');
      expect(headersOf(fired?.headers)).toEqual({
        Header: 'Value',
        'Nats-Scheduler': 'foo.schedule',
        'Nats-Schedule-Next': 'purge',
        'Nats-TTL': '1s',
      });
      // Then its TTL removes it.
      await until(async () => stateOf(await info('S')).messages === 0, 3_000);
    },
  );

  // TestJetStreamClusterScheduledMessageSubjectSourcing, jetstream_cluster_1_test.go:9837-9920
  it('fires the last message of its source subject', async () => {
    await created({ name: 'S', subjects: ['foo.*'], allow_msg_schedules: true });
    await publish('foo.data', { Header: 'Value' }, 'data');
    expect(
      await publish('foo.schedule', {
        'Nats-Schedule': '@at 1970-01-01T00:00:00Z',
        'Nats-Schedule-Target': 'foo.publish',
        'Nats-Schedule-Source': 'foo.data',
      }),
    ).toEqual({ stream: 'S', seq: 2 });
    await until(async () => (await message('S', 3)) !== undefined, 3_000);
    const fired = await message('S', 3);
    expect(fired?.data).toBe('data');
    expect(headersOf(fired?.headers)).toEqual({
      Header: 'Value',
      'Nats-Scheduler': 'foo.schedule',
      'Nats-Schedule-Next': 'purge',
    });
  });

  // TestJetStreamClusterScheduledMessageSubjectSourcingFallback, jetstream_cluster_1_test.go:9925
  it('fires its own payload when its source subject holds nothing', async () => {
    await created({ name: 'S', subjects: ['foo.*'], allow_msg_schedules: true });
    await publish(
      'foo.schedule',
      {
        'Nats-Schedule': '@at 1970-01-01T00:00:00Z',
        'Nats-Schedule-Target': 'foo.publish',
        'Nats-Schedule-Source': 'foo.data',
      },
      'own',
    );
    await until(async () => (await message('S', 2)) !== undefined, 3_000);
    expect((await message('S', 2))?.data).toBe('own');
  });

  // TestJetStreamScheduledMessageNotTriggering, jetstream_test.go:22383 (v2.14.2)
  it('is not put off by later schedules that fire later', async () => {
    await created({ name: 'S', subjects: ['foo.>'], allow_msg_schedules: true });
    await publish('foo.schedule.first', {
      'Nats-Schedule': at(3_600_000),
      'Nats-Schedule-Target': 'foo.msg',
    });
    let stop = false;
    const later = (async () => {
      for (let i = 1; !stop; i++) {
        await publish(`foo.schedule.${i}`, {
          'Nats-Schedule': at(3_600_000),
          'Nats-Schedule-Target': 'foo.msg',
        });
        await sleep(100);
      }
    })();
    try {
      const soon = await publish('foo.schedule.validate', {
        'Nats-Schedule': at(1_000),
        'Nats-Schedule-Target': 'foo.msg',
      });
      // Fired: the schedule was purged.
      await until(async () => (await message('S', soon.seq as number)) === undefined, 3_000);
    } finally {
      stop = true;
      await later;
    }
  });

  // TestJetStreamScheduledMessageNotDeactivated, jetstream_test.go:22513 (v2.14.2)
  it('is cancelled by a plain message on its subject', async () => {
    await created({ name: 'S', subjects: ['foo.>'], allow_msg_schedules: true });
    await publish('foo.schedule', { 'Nats-Schedule': at(500), 'Nats-Schedule-Target': 'foo.msg1' });
    await until(async () => stateOf(await info('S')).last_seq === 2, 3_000);
    await publish('foo.schedule', { 'Nats-Schedule': at(800), 'Nats-Schedule-Target': 'foo.msg2' });
    await publish('foo.schedule', {});
    await sleep(1_500);
    const state = stateOf(await info('S'));
    expect(state.last_seq).toBe(4);
  });

  // TestJetStreamScheduledMessageDeliveryPreservesTargetSchedule, jetstream_test.go:22567
  it('leaves the schedule of its target subject alone', async () => {
    await created({ name: 'S', subjects: ['foo.>'], allow_msg_schedules: true });
    await publish('foo.A', { 'Nats-Schedule': at(300), 'Nats-Schedule-Target': 'foo.B' });
    await publish('foo.B', { 'Nats-Schedule': at(1_200), 'Nats-Schedule-Target': 'foo.C' });
    await until(async () => {
      const fired = await js.probe.request('$JS.API.STREAM.MSG.GET.S', { last_by_subj: 'foo.C' });
      return !errorOf(fired);
    }, 4_000);
  });
});

/** A file-backed server that can be stopped, left down for a while, and started again. */
function useRestartableServer() {
  let storeDir = '';
  let server: NatsServer | undefined;
  let probe: JsProbe | undefined;
  afterEach(async () => {
    probe?.close();
    await server?.close();
    if (storeDir) await rm(storeDir, { recursive: true, force: true });
    storeDir = '';
  });
  const start = async () => {
    storeDir ||= await mkdtemp(join(tmpdir(), 'slipstream-schedules-'));
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      jetstream: { storeDir },
      logger: silentLogger,
    });
    probe = await JsProbe.connect(server.port, { headers: true });
  };
  const stop = async () => {
    probe?.close();
    await server?.close();
    probe = undefined;
    server = undefined;
  };
  const request = (subject: string, body?: unknown, headers?: Record<string, string>) =>
    probe!.request(subject, body, headers);
  const stored = async (stream: string): Promise<Answer[]> => {
    const state = stateOf(await request(`$JS.API.STREAM.INFO.${stream}`));
    const found: Answer[] = [];
    for (let seq = state.first_seq as number; seq <= (state.last_seq as number); seq++) {
      const answer = await request(`$JS.API.STREAM.MSG.GET.${stream}`, { seq });
      if (answer.message) found.push(answer.message as Answer);
    }
    return found;
  };
  return { start, stop, request, stored };
}

describe('schedules across a restart of a file-backed server', () => {
  const server = useRestartableServer();
  const schedulesStream = async () => {
    const answer = await server.request('$JS.API.STREAM.CREATE.S', {
      name: 'S',
      subjects: ['s.>'],
      storage: 'file',
      allow_msg_schedules: true,
    });
    expect(errorOf(answer)).toBeUndefined();
  };
  const firedOn = async (target: string) =>
    (await server.stored('S')).filter((m) => m.subject === target).length;

  it('fires an @at schedule once when it fell due while the server was down', async () => {
    await server.start();
    await schedulesStream();
    await server.request('s.schedule', '', {
      'Nats-Schedule': at(700),
      'Nats-Schedule-Target': 's.target',
    });
    await server.stop();
    await sleep(1_200);
    await server.start();
    await until(async () => (await firedOn('s.target')) === 1, 3_000);
    // The schedule went with the firing; nothing fires again, nor after another restart.
    await sleep(600);
    await server.stop();
    await server.start();
    await sleep(1_000);
    expect((await server.stored('S')).map((m) => m.subject)).toEqual(['s.target']);
  });

  it('fires an @at schedule due after the restart once, at its time', async () => {
    await server.start();
    await schedulesStream();
    await server.request('s.schedule', '', {
      'Nats-Schedule': at(1_500),
      'Nats-Schedule-Target': 's.target',
    });
    await server.stop();
    await server.start();
    expect(await firedOn('s.target')).toBe(0);
    await until(async () => (await firedOn('s.target')) === 1, 4_000);
    await sleep(800);
    expect((await server.stored('S')).map((m) => m.subject)).toEqual(['s.target']);
  });

  it('keeps an @every schedule firing after a restart, once per period', async () => {
    await server.start();
    await schedulesStream();
    await server.request('s.schedule', '', {
      'Nats-Schedule': '@every 1s',
      'Nats-Schedule-Target': 's.target',
    });
    await until(async () => (await firedOn('s.target')) >= 1, 3_000);
    await server.stop();
    await sleep(2_500);
    await server.start();
    const before = await firedOn('s.target');
    // What fell due while down fires once, not once per missed second.
    await sleep(700);
    expect((await firedOn('s.target')) - before).toBeLessThanOrEqual(1);
    await until(async () => (await firedOn('s.target')) >= before + 2, 4_000);
    const messages = await server.stored('S');
    // The schedule stays; each firing names the next.
    expect(messages[0]?.subject).toBe('s.schedule');
    const last = messages.at(-1)!;
    const headers = headersOf(Buffer.from(last.hdrs as string, 'base64').toString());
    expect(headers['Nats-Scheduler']).toBe('s.schedule');
    expect(headers['Nats-Schedule-Next']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});

describe('repeating schedules (nats-server 2.14)', () => {
  it('fires a cron schedule every second, naming the next firing in its time zone', async () => {
    await created({ name: 'S', subjects: ['c.>'], allow_msg_schedules: true });
    expect(
      await publish('c.schedule', {
        'Nats-Schedule': '* * * * * *',
        'Nats-Schedule-Target': 'c.target',
        'Nats-Schedule-Time-Zone': 'Asia/Kolkata',
      }),
    ).toEqual({ stream: 'S', seq: 1 });
    await until(async () => (stateOf(await info('S')).last_seq as number) >= 3, 4_000);
    const fired = await message('S', 2);
    expect(fired?.subject).toBe('c.target');
    expect(headersOf(fired?.headers)['Nats-Schedule-Next']).toMatch(/\+05:30$/);
  });

  // TestJetStreamScheduledMessageParse, jetstream_test.go:22619-22745 (v2.14.2)
  it('computes firings as parseMsgSchedule does', () => {
    const now = Date.now();
    const second = Math.round(now / 1000) * 1000;
    const iso = new Date(now).toISOString();
    expect(nextFiring(`@at ${iso}`, undefined, 0, now)).toEqual({ at: now, repeats: false });
    expect(nextFiring('@every 5s', undefined, second, now)).toEqual({
      at: second + 5_000,
      repeats: true,
    });
    // Not once per missed period after a long while: from now.
    expect(nextFiring('@every 5s', undefined, 0, now)!.at).toBeGreaterThanOrEqual(second + 5_000);
    expect(nextFiring('@every 999ms', undefined, 0, now)).toBeUndefined();
    expect(nextFiring('* * * * * *', undefined, second, second)).toEqual({
      at: second + 1_000,
      repeats: true,
    });
    const justBefore = Math.floor(now / 1000) * 1000 + 999;
    expect(nextFiring('* * * * * *', undefined, justBefore, justBefore)!.at).toBe(
      Math.floor(now / 1000) * 1000 + 1000,
    );
    const year = new Date(now).getUTCFullYear() + 2;
    const start = Date.UTC(year, 0, 1);
    let sunday = start;
    while (new Date(sunday).getUTCDay() !== 0) sunday += 86_400_000;
    const predefined: [string, number, number][] = [
      ['@yearly', start, Date.UTC(year + 1, 0, 1)],
      ['@annually', start, Date.UTC(year + 1, 0, 1)],
      ['@monthly', start, Date.UTC(year, 1, 1)],
      ['@weekly', sunday, sunday + 7 * 86_400_000],
      ['@daily', start, start + 86_400_000],
      ['@midnight', start, start + 86_400_000],
      ['@hourly', start, start + 3_600_000],
    ];
    for (const [pattern, from, expected] of predefined) {
      expect({ pattern, at: nextFiring(pattern, undefined, from, from)?.at }).toEqual({
        pattern,
        at: expected,
      });
    }
    // Cron in a time zone: 09:00 in Amsterdam is 08:00 UTC in winter, 07:00 in summer.
    const winter = Date.UTC(year, 0, 10, 12);
    expect(nextFiring('0 0 9 * * *', 'Europe/Amsterdam', winter, winter)?.at).toBe(
      Date.UTC(year, 0, 11, 8),
    );
    const summer = Date.UTC(year, 6, 10, 12);
    expect(nextFiring('0 0 9 * * *', 'Europe/Amsterdam', summer, summer)?.at).toBe(
      Date.UTC(year, 6, 11, 7),
    );
    // Either restricted day field may match; names and steps (cron.go).
    const mondays = nextFiring('0 30 6 13 * mon', undefined, start, start)!.at;
    const day = new Date(mondays);
    expect(day.getUTCDate() === 13 || day.getUTCDay() === 1).toBe(true);
    expect(nextFiring('*/15 * * * jan-mar *', undefined, start, start)?.at).toBe(start + 15_000);
    expect(parseRfc3339('2025-06-01T10:00:00.5+02:00')).toBe(Date.UTC(2025, 5, 1, 8, 0, 0, 500));
  });
});
