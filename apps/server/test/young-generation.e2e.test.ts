import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { slipstreamServerBin, startServerProcess } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectPrinted } from './server-process.js';

// V8 doubles a busy young generation up to 32 MiB and keeps it: in a 10-minute soak the
// installed command's resident size rose 28 MiB with no leak behind it. The bin holds it at
// its first size (src/young-generation.ts); without that, the burst below grows it to 16 MiB+.

const reporter = pathToFileURL(
  join(import.meta.dirname, 'fixtures', 'report-young-generation.mjs'),
);
const MiB = 1024 * 1024;

describe('the installed command', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'slipstream-young-generation-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps its young generation at its first size through a burst of traffic', async () => {
    const report = join(dir, 'young-generation');
    const url = new URL(reporter);
    url.searchParams.set('out', report);
    const server = await startServerProcess(process.execPath, (port) => [
      '--import',
      url.href,
      slipstreamServerBin,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-js',
      '-sd',
      join(dir, 'js'),
    ]);
    try {
      await expectPrinted(server, 'Server is ready');
      // A stream left idle has its WAL checkpointed on a worker thread, whose start put V8's
      // flags back to their defaults before the hold was set again for each worker.
      await storeAndIdle(server.port);
      const delivered = await burst(server.port, 200_000);
      expect(delivered).toBe(200_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const largest = Number(await readFile(report, 'utf8'));
      expect(largest).toBeGreaterThan(0);
      expect(largest).toBeLessThanOrEqual(2 * MiB);
    } finally {
      await server.stop();
    }
  });
});

/** Creates a file stream, stores a message in it and waits past its idle checkpoint. */
async function storeAndIdle(port: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  const config = JSON.stringify({ name: 'IDLE', subjects: ['idle.>'], storage: 'file' });
  socket.write(
    `CONNECT {"verbose":false,"pedantic":false}\r\nSUB _INBOX.idle 1\r\n` +
      `PUB $JS.API.STREAM.CREATE.IDLE _INBOX.idle ${config.length}\r\n${config}\r\n`,
  );
  await vi.waitFor(() => expect(received).toContain('MSG _INBOX.idle 1'), { timeout: 10_000 });
  socket.write('PUB idle.a _INBOX.idle 1\r\nx\r\n');
  await vi.waitFor(() => expect(received).toContain('"seq":1'), { timeout: 10_000 });
  socket.destroy();
  // The store checkpoints a WAL after 100 ms without a commit.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Publishes `count` messages to a subscriber on one connection and counts what comes back. */
async function burst(port: number, count: number): Promise<number> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let tail = '';
  let delivered = 0;
  const done = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      // A 'MSG ' split between chunks is whole in the last three characters kept.
      const text = tail + chunk.toString('latin1');
      for (let at = text.indexOf('MSG '); at >= 0; at = text.indexOf('MSG ', at + 4))
        delivered += 1;
      tail = text.slice(-3);
      if (delivered >= count) resolve();
    });
  });
  socket.write('CONNECT {"verbose":false,"pedantic":false}\r\nSUB burst.* 1\r\n');
  const batch = 'PUB burst.a 16\r\n0123456789abcdef\r\n'.repeat(1000);
  for (let sent = 0; sent < count; sent += 1000) {
    if (!socket.write(batch)) await once(socket, 'drain');
  }
  await done;
  socket.destroy();
  return delivered;
}
