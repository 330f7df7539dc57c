import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningNatsServer } from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { slipHome, startJetStreamServer } from './slip.js';
import { Terminal } from './tmux.js';

// slip at a real terminal (tmux): the prompts of stream add and consumer add, a progress bar, colours.
describe('slip at a terminal', () => {
  let server: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;
  let terminal: Terminal | undefined;
  const slip = () => `node ${join(import.meta.dirname, '..', 'bin', 'slip.js')} -s ${server.url}`;

  beforeAll(async () => {
    [server, home] = await Promise.all([startJetStreamServer(), slipHome()]);
  });
  afterEach(async () => {
    await terminal?.close();
    terminal = undefined;
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), home?.remove()]);
  });

  it('stream add asks for each setting with its default, re-asks a bad value, then shows the stream', async () => {
    terminal = await Terminal.open(home.env());
    const t = terminal;
    await t.type(`${slip()} stream add --storage memory`);
    await t.keys('Enter');
    await t.shows('? Stream Name');
    await t.type('ORDERS');
    await t.keys('Enter');
    await t.shows('? Subjects (ORDERS)');
    await t.type('orders.>');
    await t.keys('Enter');
    // --storage was given: not asked.
    await t.shows('? Replication (1)');
    expect(await t.screen()).not.toContain('? Storage');
    await t.keys('Enter');
    await t.shows(/\? Retention Policy[^\n]*\n❯ Limits\n {2}Interest\n {2}Work Queue/);
    await t.keys('Enter');
    await t.shows('? Discard Policy');
    await t.keys('Down', 'Enter');
    await t.shows('✔ Discard Policy New');
    await t.shows('? Stream Messages Limit (-1)');
    await t.type('1000');
    await t.keys('Enter');
    await t.shows('? Per Subject Messages Limit (-1)');
    await t.keys('Enter');
    await t.shows('? Total Stream Size (-1)');
    await t.type('1GB');
    await t.keys('Enter');
    await t.shows('? Message TTL (-1)');
    await t.type('soon');
    await t.keys('Enter');
    await t.shows('> invalid duration "soon" (examples: 500ms, 10s, 1h30m, 7d)');
    await t.keys('BSpace', 'BSpace', 'BSpace', 'BSpace');
    await t.type('1d');
    await t.keys('Enter');
    await t.shows('? Max Message Size (-1)');
    await t.keys('Enter');
    await t.shows('? Duplicate tracking time window (2m)');
    await t.keys('Enter');
    await t.shows('? Allow message Roll-ups (y/N)');
    await t.keys('Enter');
    await t.shows('? Allow message deletion (Y/n)');
    await t.keys('Enter');
    await t.shows('? Allow purging subjects or the entire stream (Y/n)');
    await t.type('n');
    await t.keys('Enter');
    // The info (stdout) can trail the note (stderr): wait for its last line.
    await t.shows('Stream ORDERS was created');
    const screen = await t.shows('Active Consumers: 0');
    for (const line of [
      'Subjects: orders.>',
      'Retention: memory - limits',
      'Discard Policy: new',
      'Maximum Messages: 1,000',
      'Maximum Bytes: 1.0 GiB',
      'Maximum Age: 1d',
      'Allows Purge: no',
      'Allows Msg Delete: yes',
    ]) {
      expect(screen).toContain(line);
    }
    const info = JSON.parse(
      (await home.run(['-s', server.url, '--json', 'stream', 'info', 'ORDERS'])).stdout,
    );
    expect(info.config).toMatchObject({
      subjects: ['orders.>'],
      storage: 'memory',
      discard: 'new',
      max_msgs: 1000,
      max_bytes: 1024 ** 3,
      max_age: 86_400e9,
      deny_purge: true,
      deny_delete: false,
    });
  });

  it('consumer add asks for each setting as nats consumer add does; a delivery target makes it push', async () => {
    await home.run([
      '-s',
      server.url,
      'stream',
      'add',
      'SHIP',
      '--subjects',
      'ship.*',
      '--defaults',
    ]);
    terminal = await Terminal.open(home.env());
    const t = terminal;
    await t.type(`${slip()} consumer add SHIP`);
    await t.keys('Enter');
    await t.shows('? Consumer name');
    await t.type('ship.it');
    await t.keys('Enter');
    await t.shows("> a consumer name cannot hold '.', '*', '>' or spaces");
    await t.keys('BSpace', 'BSpace', 'BSpace');
    await t.type('_out');
    await t.keys('Enter');
    await t.shows('? Delivery target (empty for Pull Consumers)');
    await t.type('shipped.orders');
    await t.keys('Enter');
    await t.shows('? Delivery Queue Group');
    await t.keys('Enter');
    await t.shows('? Start policy (all, new, last, subject, 1h, msg sequence) (all)');
    await t.type('yesterday');
    await t.keys('Enter');
    await t.shows('> invalid duration "yesterday"');
    await t.keys(...Array(9).fill('BSpace'));
    await t.keys('Enter');
    // A push consumer: none is the default, as the nats CLI has it.
    await t.shows(/\? Acknowledgment policy[^\n]*\n {2}explicit\n {2}all\n❯ none/);
    await t.keys('Up', 'Up', 'Enter');
    await t.shows('✔ Acknowledgment policy explicit');
    await t.shows('? Replay policy');
    await t.keys('Enter');
    await t.shows('? Filter Stream by subjects (blank for all)');
    await t.type('ship.eu');
    await t.keys('Enter');
    await t.shows('? Maximum Allowed Deliveries (-1)');
    await t.type('5');
    await t.keys('Enter');
    await t.shows('? Maximum Acknowledgments Pending (0)');
    await t.type('100');
    await t.keys('Enter');
    await t.shows('? Idle Heartbeat (0s)');
    await t.type('10s');
    await t.keys('Enter');
    await t.shows('? Enable Flow Control, ie --flow-control (y/N)');
    await t.type('y');
    await t.keys('Enter');
    await t.shows('? Deliver headers only without bodies (y/N)');
    await t.keys('Enter');
    await t.shows('Consumer SHIP > ship_out was created');
    const screen = await t.shows('Waiting Pulls: 0');
    for (const line of [
      'Delivery Subject: shipped.orders',
      'Filter Subject: ship.eu',
      'Ack Policy: explicit',
      'Maximum Deliveries: 5',
      'Max Ack Pending: 100',
      'Idle Heartbeat: 10s',
      'Flow Control: yes',
    ]) {
      expect(screen).toContain(line);
    }
    const info = JSON.parse(
      (await home.run(['-s', server.url, '--json', 'consumer', 'info', 'SHIP', 'ship_out'])).stdout,
    );
    expect(info.config).toMatchObject({
      deliver_subject: 'shipped.orders',
      deliver_policy: 'all',
      ack_policy: 'explicit',
      filter_subject: 'ship.eu',
      max_deliver: 5,
      max_ack_pending: 100,
      idle_heartbeat: 10e9,
      flow_control: true,
    });
    expect(info.config.deliver_group).toBeUndefined();

    // --pull: no delivery target is asked, nor any push setting.
    await t.type(`clear; ${slip()} consumer add SHIP puller --pull --deliver new --ack explicit`);
    await t.keys('Enter');
    await t.shows('? Replay policy');
    await t.keys('Enter');
    await t.shows('? Filter Stream by subjects (blank for all)');
    await t.keys('Enter');
    await t.shows('? Maximum Allowed Deliveries (-1)');
    await t.keys('Enter');
    await t.shows('? Maximum Acknowledgments Pending (0)');
    await t.keys('Enter');
    await t.shows('? Deliver headers only without bodies (y/N)');
    await t.keys('Enter');
    const pulled = await t.shows('Waiting Pulls: 0');
    expect(pulled).toContain('Pull Mode: yes');
    for (const asked of ['Delivery target', 'Idle Heartbeat', 'Flow Control', 'Start policy']) {
      expect(pulled).not.toContain(`? ${asked}`);
    }
  });

  it('rm asks before deleting, and no is no', async () => {
    await home.run(['-s', server.url, 'stream', 'add', 'KEEP', '--subjects', 'keep', '--defaults']);
    terminal = await Terminal.open(home.env());
    await terminal.type(`${slip()} stream rm KEEP; echo "exit=$?"`);
    await terminal.keys('Enter');
    await terminal.shows('? Really delete Stream KEEP? (y/N)');
    await terminal.keys('Enter');
    await terminal.shows('exit=0');
    expect((await home.run(['-s', server.url, 'stream', 'info', 'KEEP'])).code).toBe(0);
  });

  it('stream view shows a page, then asks before the next', async () => {
    const run = (...args: string[]) => home.run(['-s', server.url, ...args]);
    await run('stream', 'add', 'PAGES', '--subjects', 'pages', '--defaults');
    await run('pub', 'pages', 'message {{Count}}', '--count', '3', '-J');
    terminal = await Terminal.open(home.env());
    await terminal.type(`${slip()} stream view PAGES --page 2 --raw; echo "exit=$?"`);
    await terminal.keys('Enter');
    const first = await terminal.shows('? Next Page? (Y/n)');
    expect(first).toContain('message 1\nmessage 2\n');
    expect(first).not.toContain('message 3');
    await terminal.keys('Enter');
    expect(await terminal.shows('exit=0')).toContain('message 3\n');
  });

  it('pub --count, bench and obj put draw a progress bar; tables are in colour unless NO_COLOR is set', async () => {
    await home.run([
      '-s',
      server.url,
      'stream',
      'add',
      'COLOURS',
      '--subjects',
      'colours',
      '--defaults',
    ]);
    terminal = await Terminal.open(home.env());
    await terminal.type(`${slip()} pub progress.test "n {{Count}}" --count 40 --sleep 25ms`);
    await terminal.keys('Enter');
    await terminal.shows(/Publishing \[[█░]+\] \d+% \| \d+\/40 \|/);
    const done = await terminal.shows('Published 40 messages');
    expect(done).toMatch(/Publishing \[█{40}\] 100% \| 40\/40 \|/);

    await terminal.type(`clear; ${slip()} bench pub bench.progress --msgs 30000`);
    await terminal.keys('Enter');
    expect(await terminal.shows('Pub stats:')).toMatch(
      /Publishing \[█{40}\] 100% \| 30000\/30000 \|/,
    );

    // An object store upload of 3 MiB.
    await home.run(['-s', server.url, 'obj', 'add', 'UPLOADS']);
    await writeFile(join(home.dir, 'upload.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
    await terminal.type(`clear; ${slip()} obj put UPLOADS ${join(home.dir, 'upload.bin')}`);
    await terminal.keys('Enter');
    expect(await terminal.shows('Object information for UPLOADS > upload.bin')).toMatch(
      /Uploading \[█{40}\] 100% \| 3145728\/3145728 \|/,
    );

    await terminal.type(`clear; ${slip()} stream ls`);
    await terminal.keys('Enter');
    await terminal.shows('│ COLOURS');
    expect(await terminal.screen(true)).toContain('\x1b[1mName');
    await terminal.type(`clear; NO_COLOR=1 ${slip()} stream ls`);
    await terminal.keys('Enter');
    // Until `clear` has run, the screen still holds the coloured table and the command typed.
    await terminal.shows(/^(?![\s\S]*NO_COLOR=1)[\s\S]*│ COLOURS/);
    expect(await terminal.screen(true)).not.toMatch(/\x1b\[1m/);
  });

  it('stream backup and restore draw a progress bar, then say what they did', async () => {
    for (const args of [
      ['stream', 'add', 'BIG', '--subjects', 'big', '--defaults'],
      ['pub', 'big', 'payload {{Count}} '.repeat(200), '--count', '200'],
    ]) {
      expect((await home.run(['-s', server.url, ...args])).code).toBe(0);
    }
    const dir = join(home.dir, 'big-backup');
    terminal = await Terminal.open(home.env());
    await terminal.type(`${slip()} stream backup BIG ${dir}`);
    await terminal.keys('Enter');
    const backedUp = await terminal.shows(/Received \S+ KiB in \d+ chunks for stream BIG/);
    expect(backedUp).toMatch(/Received \[█{40}\] 100% \| (\d+)\/\1 \|/);
    expect(backedUp).toContain('200 messages');

    expect((await home.run(['-s', server.url, 'stream', 'rm', 'BIG', '-f'])).code).toBe(0);
    const { size } = await stat(join(dir, 'stream.tar.s2'));
    await terminal.type(`clear; ${slip()} stream restore ${dir}`);
    await terminal.keys('Enter');
    const restored = await terminal.shows('Information for Stream BIG');
    expect(restored).toContain(`Sent [${'█'.repeat(40)}] 100% | ${size}/${size} |`);
    expect(restored).toMatch(/Restored stream BIG in \S+/);
  });
});
