import { startNatsServer } from '@slipstream/test-servers';
import { beforeAll, describe, expect, it } from 'vitest';
import { failure, slipSuite, startJetStreamServer } from './slip.js';

// CONSUMER.PAUSE is nats-server 2.11's: our server has it, nats-server 2.9.10 does not.
describe('consumer pause and resume against slipstream-server', () => {
  const { server, home, run, json } = slipSuite(startJetStreamServer);

  beforeAll(async () => {
    for (const args of [
      ['stream', 'add', 'TASKS', '--subjects', 'tasks', '--defaults'],
      ['pub', 'tasks', 'task {{Count}}', '--count', '2', '-J'],
      ['consumer', 'add', 'TASKS', 'worker', '--pull', '--defaults'],
    ]) {
      expect((await run(...args)).code).toBe(0);
    }
  });

  it('pause stops deliveries until resume; info shows the deadline', async () => {
    const paused = await run('consumer', 'pause', 'TASKS', 'worker', '1h', '-f');
    expect(paused).toMatchObject({ code: 0, stderr: '' });
    expect(paused.stdout).toMatch(
      /^Paused TASKS > worker until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \((1h|59m\d+s)\)\n$/,
    );
    const info = await run('consumer', 'info', 'TASKS', 'worker');
    expect(info.stdout).toMatch(
      / Paused Until Deadline: [\d-]+ [\d:]+ \((1h|59m\d+s) remaining\)\n/,
    );
    expect(await run('--timeout', '1s', 'consumer', 'next', 'TASKS', 'worker', '--raw')).toEqual(
      failure('no message from TASKS > worker within 1s'),
    );

    const resumed = await run('consumer', 'resume', 'TASKS', 'worker', '-f');
    expect(resumed.stdout).toMatch(
      /^Consumer TASKS > worker was resumed while previously paused until [\d-]+ [\d:]+\n$/,
    );
    expect((await run('consumer', 'next', 'TASKS', 'worker', '--raw')).stdout).toBe('task 1\n');
    expect(await run('consumer', 'resume', 'TASKS', 'worker', '-f')).toEqual(
      failure('consumer TASKS > worker is not paused'),
    );
  });

  it('a time is UTC; --json gives the answer; a past time, no time, or a missing consumer is one error line', async () => {
    const until = new Date(Date.now() + 2 * 86_400_000);
    until.setUTCMilliseconds(0);
    const text = until.toISOString().slice(0, 19).replace('T', ' ');
    // Read as UTC even where slip runs in another time zone.
    const result = await home().run(
      ['-s', server().url, '--json', 'consumer', 'pause', 'TASKS', 'worker', text, '-f'],
      { TZ: 'Asia/Tokyo' },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ paused: true });
    expect(new Date(answer.pause_until).getTime()).toBe(until.getTime());
    expect((await json('consumer', 'info', 'TASKS', 'worker')).paused).toBe(true);
    expect((await run('consumer', 'resume', 'TASKS', 'worker', '-f')).code).toBe(0);

    expect(await run('consumer', 'pause', 'TASKS', 'worker', '2020-01-02 03:04:05', '-f')).toEqual(
      failure('consumer failed to pause, perhaps a time in the past was given'),
    );
    expect(await run('consumer', 'pause', 'TASKS', 'worker', '-f')).toEqual(
      failure('give the time or duration to pause until'),
    );
    expect(await run('consumer', 'pause', 'TASKS', 'worker', 'later', '-f')).toEqual(
      failure('could not read "later" as a time (2026-12-24 18:00:00) or a duration (1h30m)'),
    );
    expect(await run('consumer', 'pause', 'TASKS', 'nobody', '1h', '-f')).toEqual(
      failure('consumer not found (status 404, err_code 10014)'),
    );
  });
});

describe('consumer pause and resume against nats-server 2.9.10', () => {
  const { run } = slipSuite(() => startNatsServer({ jetstream: true }));

  beforeAll(async () => {
    await run('stream', 'add', 'TASKS', '--subjects', 'tasks', '--defaults');
    await run('consumer', 'add', 'TASKS', 'worker', '--pull', '--defaults');
  });

  it('says in one line that the server cannot pause consumers', async () => {
    const unsupported = failure(
      'the server did not answer CONSUMER.PAUSE within 1s: pausing consumers needs nats-server 2.11 or newer',
    );
    expect(
      await run('--timeout', '1s', 'consumer', 'pause', 'TASKS', 'worker', '1h', '-f'),
    ).toEqual(unsupported);
    expect(await run('--timeout', '1s', 'consumer', 'resume', 'TASKS', 'worker', '-f')).toEqual(
      unsupported,
    );
  });

  it('consumer add --pause is refused in one line by a server older than 2.11', async () => {
    expect(
      await run('consumer', 'add', 'TASKS', 'later', '--pull', '--pause', '30m', '--defaults'),
    ).toEqual(failure("consumer 'pause_until' requires server 2.11.0"));
  });
});
