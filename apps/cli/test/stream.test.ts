import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, jetStreamServers, slipHome, slipSuite } from './slip.js';

describe.each(jetStreamServers)('stream commands against $name with JetStream', ({ start }) => {
  const { server, home, run, json } = slipSuite(start);

  it('stops quietly when its reader goes away early (slip ... | head)', async () => {
    await run('stream', 'add', 'PIPED', '--subjects', 'piped.>', '--defaults');
    await run('pub', 'piped.a', 'line {{Count}}', '--count', '2000', '-J');
    const command = `"${process.execPath}" "${bin}" -s ${server().url} --json stream view PIPED | head -n 1`;
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        ['-o', 'pipefail', '-c', command],
        { env: home().env() },
        (error, stdout, stderr) =>
          resolve({ code: (error?.code as number | undefined) ?? 0, stdout, stderr }),
      ),
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({ seq: 1, data: 'line 1' });
    // The other tests of this server count its streams.
    expect((await run('stream', 'rm', 'PIPED', '-f')).code).toBe(0);
  });

  it('stream add with the nats CLI flags creates the stream and prints its info', async () => {
    const added = await run(
      'stream',
      'add',
      'ORDERS',
      '--subjects',
      'orders.>',
      '--storage',
      'file',
      '--max-msgs',
      '1000',
      '--max-age',
      '1d',
      '--dupe-window',
      '30s',
      '--description',
      'all orders',
      '--defaults',
    );
    expect(added.code).toBe(0);
    expect(added.stderr).toBe('Stream ORDERS was created\n\n');
    expect(added.stdout).toMatch(/^Information for Stream ORDERS created /);
    expect(added.stdout).toMatch(/ Subjects: orders\.>\n/);
    expect(added.stdout).toMatch(/ Maximum Age: 1d\n/);
    expect(added.stdout).toMatch(/ Duplicate Window: 30s\n/);
    expect(added.stdout).toMatch(/ Maximum Messages: 1,000\n/);
    const info = await json('stream', 'info', 'ORDERS');
    expect(info.config).toMatchObject({
      name: 'ORDERS',
      subjects: ['orders.>'],
      storage: 'file',
      max_msgs: 1000,
      max_age: 86_400e9,
      duplicate_window: 30e9,
      description: 'all orders',
    });
  });

  it('stream add --config reads a JSON stream configuration; flags override it', async () => {
    const file = join(home().dir, 'events.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'EVENTS', subjects: ['events.*'], max_msgs: 10, storage: 'memory' }),
    );
    expect((await run('stream', 'add', '--config', file, '--max-msgs', '20')).code).toBe(0);
    expect((await json('stream', 'info', 'EVENTS')).config).toMatchObject({
      name: 'EVENTS',
      subjects: ['events.*'],
      storage: 'memory',
      max_msgs: 20,
    });
    expect((await run('stream', 'rm', 'EVENTS', '-f')).code).toBe(0);
  });

  it('without a terminal and without a name, stream add says what is missing', async () => {
    const result = await run('stream', 'add', '--subjects', 'x');
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slip: error: a stream name is needed (or run at a terminal to be asked)\n',
    });
  });

  it('pub -J stores messages; ls, get, view and rmm read and delete them', async () => {
    const pub = await run(
      'pub',
      'orders.new',
      'order {{Count}}',
      '--count',
      '4',
      '-J',
      '-H',
      'Kind:new',
    );
    expect(pub.stdout).toBe(
      [1, 2, 3, 4].map((n) => `Stored in stream ORDERS as message ${n}\n`).join(''),
    );
    expect((await run('pub', 'orders.old', 'old one', '-J')).code).toBe(0);

    const ls = await run('stream', 'ls');
    expect(ls.stdout).toMatch(
      /│ ORDERS │ all orders +│ [\d-]+ [\d:]+ │ 5 +│ \d+ B +│ [\d-]+ [\d:]+ +│/,
    );
    expect((await run('stream', 'ls', '--names')).stdout).toBe('ORDERS\n');

    const get = await run('stream', 'get', 'ORDERS', '2');
    expect(get.stdout).toMatch(
      /^Item: ORDERS#2 received \S+ on Subject orders\.new\nKind: new\n\norder 2\n/,
    );
    expect((await run('stream', 'get', 'ORDERS', '--last-for', 'orders.new', '--raw')).stdout).toBe(
      'order 4\n',
    );
    expect(JSON.parse((await run('--json', 'stream', 'get', 'ORDERS', '5')).stdout)).toMatchObject({
      subject: 'orders.old',
      seq: 5,
      data: 'old one',
    });

    expect((await run('stream', 'view', 'ORDERS', '--raw')).stdout).toBe(
      'order 1\norder 2\norder 3\norder 4\nold one\n',
    );
    expect((await run('stream', 'view', 'ORDERS', '--raw', '--subject', 'orders.old')).stdout).toBe(
      'old one\n',
    );
    expect((await run('stream', 'view', 'ORDERS', '--id', '3')).stdout).toMatch(
      /^\[3\] Subject: orders\.new Received: /,
    );

    const refused = await run('stream', 'rmm', 'ORDERS', '2');
    expect(refused.stderr).toBe(
      'slip: error: add --force to delete message 2 from Stream ORDERS without a terminal to confirm it\n',
    );
    expect((await run('stream', 'rmm', 'ORDERS', '2', '-f')).code).toBe(0);
    expect((await run('stream', 'view', 'ORDERS', '--raw')).stdout).toBe(
      'order 1\norder 3\norder 4\nold one\n',
    );
    const missing = await run('stream', 'get', 'ORDERS', '2');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^slip: error: no message found \(status 404, err_code 10037\)\n$|^slip: error: no message 2 in stream ORDERS\n$/,
    );
  });

  it('stream edit changes only the given settings and lists the changes', async () => {
    const edited = await run(
      'stream',
      'edit',
      'ORDERS',
      '--max-msgs-per-subject',
      '10',
      '--deny-delete',
    );
    expect(edited.code).toBe(0);
    expect(edited.stderr).toContain('max_msgs_per_subject: -1 → 10');
    expect(edited.stderr).toContain('deny_delete: false → true');
    const config = (await json('stream', 'info', 'ORDERS')).config;
    expect(config).toMatchObject({
      max_msgs_per_subject: 10,
      deny_delete: true,
      max_msgs: 1000,
      subjects: ['orders.>'],
    });
    expect((await run('stream', 'edit', 'ORDERS')).stderr).toBe(
      'slip: error: nothing to change: give the settings as flags\n',
    );
  });

  it('stream purge keeping the newest, then by subject; rm removes the stream; errors carry the JetStream code', async () => {
    // Left: 1, 3, 4 on orders.new, 5 on orders.old.
    const kept = await run('stream', 'purge', 'ORDERS', '--keep', '2', '-f');
    expect(kept.stdout).toBe('Purged 2 messages from ORDERS\n');
    const bySubject = await run('stream', 'purge', 'ORDERS', '--subject', 'orders.old', '-f');
    expect(bySubject.stdout).toBe('Purged 1 message from ORDERS\n');
    expect((await json('stream', 'info', 'ORDERS')).state).toMatchObject({
      messages: 1,
      first_seq: 4,
    });
    expect((await run('stream', 'rm', 'ORDERS', '-f')).stderr).toBe('Deleted stream ORDERS\n');
    const gone = await run('stream', 'info', 'ORDERS');
    expect(gone).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slip: error: stream not found (status 404, err_code 10059)\n',
    });
    expect((await run('stream', 'ls')).stderr).toBe('No Streams defined\n');
  });
});

describe.each(jetStreamServers)('consumer commands against $name with JetStream', ({ start }) => {
  let server: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;
  const run = (...args: string[]) => home.run(['-s', server.url, ...args]);

  beforeAll(async () => {
    [server, home] = await Promise.all([start(), slipHome()]);
    await run('stream', 'add', 'JOBS', '--subjects', 'jobs.*', '--defaults');
    await run('pub', 'jobs.a', 'job {{Count}}', '--count', '3', '-J');
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), home?.remove()]);
  });

  it('consumer add, info, ls and edit', async () => {
    const added = await run(
      'consumer',
      'add',
      'JOBS',
      'worker',
      '--filter',
      'jobs.a',
      '--ack',
      'explicit',
      '--wait',
      '1m',
      '--pull',
      '--defaults',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/ Filter Subject: jobs\.a\n/);
    expect(added.stdout).toMatch(/ Ack Wait: 1m\n/);
    const ls = await run('consumer', 'ls', 'JOBS');
    expect(ls.stdout).toMatch(/│ worker │ +│ [\d-]+ [\d:]+ │ 0 +│ 3 +│ never +│/);
    const edited = await run(
      'consumer',
      'edit',
      'JOBS',
      'worker',
      '--max-deliver',
      '5',
      '--description',
      'does jobs',
    );
    expect(edited.stdout).toMatch(/ Maximum Deliveries: 5\n/);
    const info = JSON.parse((await run('--json', 'consumer', 'info', 'JOBS', 'worker')).stdout);
    expect(info.config).toMatchObject({
      durable_name: 'worker',
      max_deliver: 5,
      description: 'does jobs',
      ack_wait: 60e9,
    });
  });

  it('consumer next acknowledges (the server confirms it); --no-ack leaves it pending', async () => {
    const next = await run('consumer', 'next', 'JOBS', 'worker', '--count', '2');
    expect(next.stdout).toMatch(
      /subj: jobs\.a \/ tries: 1 \/ cons seq: 1 \/ str seq: 1 \/ pending: 2\n\njob 1\n\nAcknowledged message\n/,
    );
    expect(next.stdout).toMatch(/str seq: 2 .*\n\njob 2\n\nAcknowledged message\n/);
    expect((await run('consumer', 'next', 'JOBS', 'worker', '--no-ack', '--raw')).stdout).toBe(
      'job 3\n',
    );
    const info = JSON.parse((await run('--json', 'consumer', 'info', 'JOBS', 'worker')).stdout);
    expect(info).toMatchObject({ num_ack_pending: 1, ack_floor: { stream_seq: 2 } });
    const empty = await run('--timeout', '500ms', 'consumer', 'next', 'JOBS', 'worker');
    expect(empty).toMatchObject({
      code: 1,
      stderr: 'slip: error: no message from JOBS > worker within 500ms\n',
    });
  });

  it('consumer rm deletes it; a missing consumer is one error line with its code', async () => {
    expect((await run('consumer', 'rm', 'JOBS', 'worker', '-f')).stderr).toBe(
      'Deleted consumer JOBS > worker\n',
    );
    expect(await run('consumer', 'info', 'JOBS', 'worker')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slip: error: consumer not found (status 404, err_code 10014)\n',
    });
  });
});
