import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { largestReported, startReporting, useTempDir } from './server-process.js';

// The server reads each socket into a new buffer outside the JavaScript heap, freed only by a
// collection; a publisher whose messages nobody takes brings few collections, so without the
// command's buffer collector (src/buffer-collector.ts) 64 MiB of such publishes left
// 24-26 MiB of dead buffers waiting for one (4 runs); with it, 7.6-9.3 MiB.

const MiB = 1024 * 1024;

describe('the installed command', () => {
  const tempDir = useTempDir('slipstream-buffer-collection-');

  it('frees the buffers of what it read while a publisher floods it with messages nobody takes', async () => {
    const report = join(tempDir(), 'buffers');
    const server = await startReporting('report-buffer-memory.mjs', report);
    try {
      await flood(server.port, 64 * MiB);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const largest = await largestReported(report);
      expect(largest).toBeGreaterThan(0);
      // Collected after each 4 MiB read once they grew by 4 MiB: two steps' worth and the live ones.
      expect(largest).toBeLessThan(16 * MiB);
    } finally {
      await server.stop();
    }
  });
});

/** Publishes `bytes` of 16-byte messages with no subscriber, then waits for a PONG. */
async function flood(port: number, bytes: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.write('CONNECT {"verbose":false,"pedantic":false}\r\n');
  const batch = 'PUB flood.a 16\r\n0123456789abcdef\r\n'.repeat(2000);
  for (let sent = 0; sent < bytes; sent += batch.length) {
    if (!socket.write(batch)) await once(socket, 'drain');
  }
  socket.write('PING\r\n');
  while (!received.includes('PONG')) await once(socket, 'data');
  socket.destroy();
}
