import { describe, expect, it } from 'vitest';
import { failure, slipSuite, startJetStreamServer } from './slip.js';

// nats-server 2.12 / 2.14 flags and commands of `nats stream add` / `nats consumer`
// (natscli cli/stream_command.go --persist-mode, cli/consumer_command.go --prioritized-groups
// and `consumer reset`): our server has them, nats-server 2.9.10 does not.
describe('2.12 / 2.14 stream and consumer flags against slipstream-server', () => {
  const { run, json } = slipSuite(startJetStreamServer);

  it('stream add --persist-mode async makes an async file stream', async () => {
    const added = await json(
      'stream',
      'add',
      'FAST',
      '--subjects',
      'fast',
      '--storage',
      'file',
      '--persist-mode',
      'async',
      '--defaults',
    );
    expect((added.config as { persist_mode: string }).persist_mode).toBe('async');
    expect((await run('stream', 'add', 'X', '--persist-mode', 'later', '--defaults')).code).toBe(1);
  });

  it('consumer add --prioritized-groups and --pinned-groups set the policy; two at once are refused', async () => {
    expect((await run('stream', 'add', 'JOBS', '--subjects', 'jobs', '--defaults')).code).toBe(0);
    const prioritized = await json(
      'consumer',
      'add',
      'JOBS',
      'ranked',
      '--pull',
      '--prioritized-groups',
      'A,B',
      '--defaults',
    );
    expect(prioritized.config).toMatchObject({
      priority_policy: 'prioritized',
      priority_groups: ['A', 'B'],
    });
    const pinned = await json(
      'consumer',
      'add',
      'JOBS',
      'pinned',
      '--pull',
      '--pinned-groups',
      'A',
      '--pinned-ttl',
      '30s',
      '--defaults',
    );
    expect(pinned.config).toMatchObject({
      priority_policy: 'pinned_client',
      priority_timeout: 30_000_000_000,
    });
    expect(
      await run(
        'consumer',
        'add',
        'JOBS',
        'both',
        '--pull',
        '--pinned-groups',
        'A',
        '--overflow-groups',
        'B',
        '--defaults',
      ),
    ).toEqual(failure('give one of --pinned-groups, --overflow-groups, --prioritized-groups'));
  });

  it('consumer reset goes back to the ack floor or to --sequence', async () => {
    for (const args of [
      ['stream', 'add', 'TASKS', '--subjects', 'tasks', '--defaults'],
      ['pub', 'tasks', 'task {{Count}}', '--count', '3', '-J'],
      ['consumer', 'add', 'TASKS', 'worker', '--pull', '--defaults'],
      ['consumer', 'next', 'TASKS', 'worker', '--count', '2', '--raw'],
    ]) {
      expect((await run(...args)).code).toBe(0);
    }
    const back = await run('consumer', 'reset', 'TASKS', 'worker', '-f');
    expect(back).toMatchObject({ code: 0, stderr: '' });
    expect(back.stdout).toBe(
      [
        'Consumer TASKS > worker was reset to stream sequence 3',
        '  Delivered: consumer 0, stream 2',
        '  Ack floor: consumer 0, stream 2',
        '  Pending: 1',
        '',
      ].join('\n'),
    );
    const answer = await json('consumer', 'reset', 'TASKS', 'worker', '--sequence', '1', '-f');
    expect(answer).toMatchObject({ reset_seq: 1, num_pending: 3 });
    expect((await run('consumer', 'next', 'TASKS', 'worker', '--raw')).stdout).toBe('task 1\n');
    expect(await run('consumer', 'reset', 'TASKS', 'nobody', '-f')).toEqual(
      failure('consumer not found (status 404, err_code 10014)'),
    );
  });
});
