import { describe, expect, it } from 'vitest';
import { slipSuite, startJetStreamServer } from './slip.js';

// `nats counter get|view|increment|list` (natscli cli/counter_command.go) and `nats stream add
// --allow-counter / --allow-schedules` (cli/stream_command.go): nats-server 2.12's counters and
// schedules, which our server has and nats-server 2.9.10 does not.
describe('counters and schedule flags against slipstream-server', () => {
  const { run, json } = slipSuite(startJetStreamServer);

  it('stream add --allow-counter makes a counter stream that counter increments and reads', async () => {
    const added = await json(
      'stream',
      'add',
      'HITS',
      '--subjects',
      'hits.>',
      '--allow-counter',
      '--allow-direct',
      '--defaults',
    );
    expect(added.config).toMatchObject({ allow_msg_counter: true });
    const once = await run('counter', 'incr', 'hits.home');
    expect(once.stdout.trim()).toBe('1');
    const big = await run('ctr', 'increment', 'hits.home', '100000000000000000000000');
    expect(big.stdout.trim()).toBe('100000000000000000000001');
    expect((await run('counter', 'incr', 'hits.home', '-1')).stdout.trim()).toBe(
      '100000000000000000000000',
    );
    expect((await run('counter', 'get', 'hits.home')).stdout.trim()).toBe(
      '100000000000000000000000',
    );
    expect(await json('counter', 'view', 'hits.home')).toEqual({
      subject: 'hits.home',
      value: '100000000000000000000000',
      increment: '-1',
      sources: {},
    });
    await run('counter', 'incr', 'hits.away', '2');
    expect((await run('counter', 'ls', '--stream', 'HITS')).stdout.trim().split('\n')).toEqual([
      'hits.away',
      'hits.home',
    ]);
    const bad = await run('counter', 'incr', 'hits.home', '1.5');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid value: 1.5');
  });

  it('refuses a stream that is not a counter', async () => {
    await run('stream', 'add', 'PLAIN', '--subjects', 'plain', '--defaults');
    const refused = await run('counter', 'get', 'plain');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"PLAIN" is not a valid counter stream');
  });

  it('stream add --allow-schedules turns schedules (and roll-ups) on', async () => {
    const added = await json(
      'stream',
      'add',
      'LATER',
      '--subjects',
      'later.>',
      '--allow-schedules',
      '--defaults',
    );
    expect(added.config).toMatchObject({ allow_msg_schedules: true, allow_rollup_hdrs: true });
  });
});
