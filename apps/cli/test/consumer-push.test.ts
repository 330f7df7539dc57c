import { beforeAll, describe, expect, it } from 'vitest';
import { failure, jetStreamServers, slipSuite } from './slip.js';

describe.each(jetStreamServers)('push consumers against $name', ({ start }) => {
  const { server, home, run, json } = slipSuite(start);

  beforeAll(async () => {
    await run('stream', 'add', 'EVENTS', '--subjects', 'events.*', '--defaults');
    await run('pub', 'events.a', 'event {{Count}}', '--count', '3', '-J');
  });

  it('consumer add --target makes a push consumer with the nats CLI push flags', async () => {
    const added = await run(
      'consumer',
      'add',
      'EVENTS',
      'monitor',
      '--target',
      'monitor.events',
      '--deliver-group',
      'watchers',
      '--heartbeat',
      '2s',
      '--flow-control',
      '--defaults',
    );
    expect(added.code).toBe(0);
    expect(added.stderr).toBe('Consumer EVENTS > monitor was created\n\n');
    for (const line of [
      ' Delivery Subject: monitor.events\n',
      ' Deliver Queue Group: watchers\n',
      ' Ack Policy: none\n',
      ' Idle Heartbeat: 2s\n',
      ' Flow Control: yes\n',
    ]) {
      expect(added.stdout).toContain(line);
    }
    expect(added.stdout).not.toContain('Pull Mode');
    const info = await json('consumer', 'info', 'EVENTS', 'monitor');
    expect(info.config).toMatchObject({
      durable_name: 'monitor',
      deliver_subject: 'monitor.events',
      deliver_group: 'watchers',
      idle_heartbeat: 2e9,
      flow_control: true,
      ack_policy: 'none',
    });
  });

  it('consumer sub prints what a push consumer delivers, then stops after --count', async () => {
    const sub = await run('consumer', 'sub', 'EVENTS', 'monitor', '--count', '3');
    expect(sub.code).toBe(0);
    expect(sub.stderr).toBe('Consuming from EVENTS > monitor on monitor.events\n');
    expect(sub.stdout).toMatch(
      /subj: events\.a \/ tries: 1 \/ cons seq: 1 \/ str seq: 1 \/ pending: 2\n\nevent 1\n\n/,
    );
    expect(sub.stdout).toMatch(/str seq: 3 .*\n\nevent 3\n\n$/);
    // An ack none consumer: nothing is acknowledged.
    expect(sub.stdout).not.toContain('Acknowledged');
  });

  it('consumer sub acknowledges what an explicit push consumer delivers, and reads pull consumers too', async () => {
    expect(
      (
        await run(
          'consumer',
          'add',
          'EVENTS',
          'acker',
          '--target',
          'acker.events',
          '--ack',
          'explicit',
          '--defaults',
        )
      ).code,
    ).toBe(0);
    const raw = await run('consumer', 'sub', 'EVENTS', 'acker', '--count', '2', '--raw');
    expect(raw.stdout).toBe('event 1\nevent 2\n');
    // Both acknowledged, confirmed by the server before slip ended (the third one, pushed
    // too, may be pending).
    expect(await json('consumer', 'info', 'EVENTS', 'acker')).toMatchObject({
      ack_floor: { stream_seq: 2 },
    });

    expect((await run('consumer', 'add', 'EVENTS', 'puller', '--pull', '--defaults')).code).toBe(0);
    const pulled = await run('consumer', 'sub', 'EVENTS', 'puller', '--count', '3');
    expect(pulled.stdout.match(/Acknowledged message/g)).toHaveLength(3);
    expect(await json('consumer', 'info', 'EVENTS', 'puller')).toMatchObject({
      num_ack_pending: 0,
      ack_floor: { stream_seq: 3 },
    });
  });

  it('Ctrl-C stops consumer sub cleanly: exit 0, no stack trace', async () => {
    const sub = home().start(['-s', server().url, 'consumer', 'sub', 'EVENTS', 'monitor']);
    await sub.printed('Consuming from EVENTS > monitor');
    sub.signal('SIGINT');
    expect(await sub.done).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Consuming from EVENTS > monitor on monitor.events\n',
    });
  });

  it('push-only flags on a pull consumer, or --pull with --target, are one error line', async () => {
    expect(
      await run('consumer', 'add', 'EVENTS', 'bad', '--heartbeat', '1s', '--defaults'),
    ).toEqual(failure('--heartbeat and --flow-control are for push consumers (--target)'));
    expect(
      await run('consumer', 'add', 'EVENTS', 'bad', '--pull', '--target', 'x', '--defaults'),
    ).toEqual(failure('give --pull or --target, not both'));
    expect((await run('consumer', 'add', 'EVENTS', '--defaults')).stderr).toBe(
      'slip: error: a consumer name is needed (or run at a terminal to be asked)\n',
    );
  });
});
