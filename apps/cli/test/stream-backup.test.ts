import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from '@slipstream/client';
import type { RunningNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetStreamServers, slipAgainst, slipHome } from './slip.js';

/**
 * A stream config as the server stores it: without the metadata a 2.11 server (ours too) adds to
 * its info answers (its version and API level). The snapshot answer carries the stored config;
 * the restore answer has them on a 2.11 server, ours included.
 */
function storedConfig(config: { metadata?: Record<string, string> }) {
  if (config.metadata === undefined) return config;
  const { '_nats.ver': _version, '_nats.level': _level, ...metadata } = config.metadata;
  return { ...config, metadata };
}

describe.each(jetStreamServers)('stream backup and restore against $name', ({ start }) => {
  let server: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;
  let run: ReturnType<typeof slipAgainst>['run'];
  let json: ReturnType<typeof slipAgainst>['json'];
  /** Every message of the stream, one object each, as `stream view --json` shows them. */
  const messages = async (stream: string) => {
    const result = await run('--json', 'stream', 'view', stream);
    expect(result.code).toBe(0);
    return result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  };

  beforeAll(async () => {
    [server, home] = await Promise.all([start(), slipHome()]);
    ({ run, json } = slipAgainst(home, () => server.url));
    const setup = [
      ['stream', 'add', 'ORDERS', '--subjects', 'orders.>', '--storage', 'file', '--defaults'],
      ['pub', 'orders.new', 'order {{Count}}', '--count', '3', '-H', 'Source:cli', '-J'],
      ['pub', 'orders.old', 'old one', '-J'],
      ['pub', 'orders.new', 'order 4', '-H', 'Source:web', '-H', 'Region:eu', '-J'],
      ['consumer', 'add', 'ORDERS', 'shipping', '--filter', 'orders.new', '--defaults'],
      ['consumer', 'next', 'ORDERS', 'shipping'],
    ];
    for (const args of setup) expect((await run(...args)).code).toBe(0);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), home?.remove()]);
  });

  it('backs a stream up with its consumer, and restores it after it was deleted', async () => {
    const before = await json('stream', 'info', 'ORDERS');
    const stored = await messages('ORDERS');
    const consumer = await json('consumer', 'info', 'ORDERS', 'shipping');
    const dir = join(home.dir, 'orders-backup');

    const backup = await json('stream', 'backup', 'ORDERS', dir, '--chunk-size', '64');
    expect(backup).toMatchObject({ stream: 'ORDERS', state: { messages: 5, last_seq: 5 } });
    expect(backup.chunks).toBeGreaterThan(1);
    expect((await readdir(dir)).sort()).toEqual(['backup.json', 'stream.tar.s2']);
    expect((await stat(join(dir, 'stream.tar.s2'))).size).toBe(backup.bytes);
    const metadata = JSON.parse(await readFile(join(dir, 'backup.json'), 'utf8'));
    expect(metadata.config).toEqual(storedConfig(before.config));
    expect(metadata.state).toMatchObject({ messages: 5, first_seq: 1, last_seq: 5 });

    expect((await run('stream', 'rm', 'ORDERS', '-f')).code).toBe(0);
    const restored = await json('stream', 'restore', dir);
    expect(storedConfig(restored.config)).toEqual(storedConfig(before.config));
    expect(restored.state).toMatchObject({ messages: 5, first_seq: 1, last_seq: 5 });

    const after = await json('stream', 'info', 'ORDERS');
    expect(after.state).toMatchObject({
      messages: before.state.messages,
      bytes: before.state.bytes,
      first_seq: 1,
      last_seq: 5,
      consumer_count: 1,
    });
    expect(stored).toHaveLength(5);
    expect(stored[4]).toMatchObject({ data: 'order 4', headers: { Source: ['web'] } });
    expect(await messages('ORDERS')).toEqual(stored);
    // The consumer comes back where it was: message 1 acknowledged, orders 2 to 4 pending.
    const restoredConsumer = await json('consumer', 'info', 'ORDERS', 'shipping');
    expect(restoredConsumer.config).toEqual(consumer.config);
    expect(restoredConsumer).toMatchObject({
      delivered: { stream_seq: 1 },
      ack_floor: { stream_seq: 1 },
      num_pending: 3,
    });
    const next = await run('consumer', 'next', 'ORDERS', 'shipping', '--raw');
    expect(next.stdout).toBe('order 2\n');
  });

  it('--no-consumers leaves the consumers out; restore --config restores with other settings', async () => {
    const dir = join(home.dir, 'no-consumers');
    expect((await run('stream', 'backup', 'ORDERS', dir, '--no-consumers')).code).toBe(0);
    expect((await run('stream', 'rm', 'ORDERS', '-f')).code).toBe(0);
    const { config } = JSON.parse(await readFile(join(dir, 'backup.json'), 'utf8'));
    const configFile = join(home.dir, 'restored-config.json');
    await writeFile(configFile, JSON.stringify({ ...config, description: 'restored' }));
    const restored = await run('stream', 'restore', dir, '--config', configFile);
    expect(restored.code).toBe(0);
    expect(restored.stderr).toMatch(/^Restored stream ORDERS in \S+\n/);
    expect(restored.stdout).toMatch(/^Information for Stream ORDERS created /);
    const info = await json('stream', 'info', 'ORDERS');
    expect(info.config.description).toBe('restored');
    expect(info.state).toMatchObject({ messages: 5, consumer_count: 0 });
  });

  it('a stream larger than the 8 MiB of chunks a server sends unacknowledged comes back whole', async () => {
    expect((await run('stream', 'add', 'LARGE', '--subjects', 'large', '--defaults')).code).toBe(0);
    // Random base64 bodies: nats-server's s2 compression finds nothing to shrink.
    const bodies = Array.from({ length: 20 }, () => randomBytes(384 * 1024).toString('base64'));
    const nc = await connect({ servers: server.url });
    for (const body of bodies) nc.publish('large', body);
    await nc.flush();
    await nc.close();
    const before = await json('stream', 'info', 'LARGE');
    expect(before.state.messages).toBe(20);

    const dir = join(home.dir, 'large');
    const backup = await json('stream', 'backup', 'LARGE', dir);
    expect(backup.bytes).toBeGreaterThan(9 * 1024 * 1024);
    expect((await run('stream', 'rm', 'LARGE', '-f')).code).toBe(0);
    const restored = await json('stream', 'restore', dir);
    expect(restored.state).toMatchObject({ messages: 20, bytes: before.state.bytes });
    expect((await json('stream', 'get', 'LARGE', '20')).data).toBe(bodies[19]);
    expect((await run('stream', 'rm', 'LARGE', '-f')).code).toBe(0);
  });

  it('a missing stream, or restoring over an existing one, is one line with the err_code', async () => {
    const missing = await run('stream', 'backup', 'NOPE', join(home.dir, 'nope'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('slip: error: stream not found (status 404, err_code 10059)\n');
    await expect(stat(join(home.dir, 'nope'))).rejects.toThrow(/ENOENT/);

    const dir = join(home.dir, 'existing');
    expect((await run('stream', 'backup', 'ORDERS', dir)).code).toBe(0);
    const over = await run('stream', 'restore', dir);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^slip: error: [^\n]+ \(status 400, err_code 10130\)\n$/);
    expect(over.stdout).toBe('');
  });
});
