import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRawSocket, peakRssBytes, rssBytes } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlipstreamProcess } from './support/server-process.js';

const MiB = 1024 * 1024;
const stalledPerRound = 10;
const rounds = 3;
/** Half the default, so that a round takes seconds and the machine keeps memory to spare. */
const maxPending = 32 * MiB;
/** Issue #14: back within 2x the level before, plus 30 MiB, after 30 s idle. */
const idleMs = 30_000;

describe('memory of a slipstream-server process', () => {
  let server: Awaited<ReturnType<typeof startSlipstreamProcess>>;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-'));
    const config = join(dir, 'server.conf');
    await writeFile(config, `max_pending: ${maxPending}\n`);
    server = await startSlipstreamProcess(['-c', config]);
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives back what slow consumers held once they are cut off and everyone has left', async () => {
    const pid = server.child.pid!;
    const slowConsumers = async () => {
      const varz = await fetch(`http://127.0.0.1:${server.httpPort}/varz`);
      return ((await varz.json()) as { slow_consumers: number }).slow_consumers;
    };
    const before = rssBytes(pid);
    const frame = `PUB stall ${64 * 1024}\r\n${'x'.repeat(64 * 1024)}\r\n`;
    const batch = Buffer.from(frame.repeat(16));

    for (let round = 1; round <= rounds; round++) {
      // Subscribers that never read: the server queues for them until it cuts them off.
      const stalled = await Promise.all(
        Array.from({ length: stalledPerRound }, () =>
          connectRawSocket(server.port, 'SUB stall 1\r\n'),
        ),
      );
      for (const socket of stalled) socket.pause();
      const publisher = await connectRawSocket(server.port);
      const deadline = Date.now() + 60_000;
      let cut = 0;
      while (cut < round * stalledPerRound) {
        expect(Date.now(), `round ${round}: ${cut} slow consumers cut`).toBeLessThan(deadline);
        if (!publisher.write(batch)) await once(publisher, 'drain');
        cut = await slowConsumers();
      }
      for (const socket of [publisher, ...stalled]) socket.destroy();
    }

    const peak = peakRssBytes(pid);
    const limit = 2 * before + 30 * MiB;
    const idleSince = Date.now();
    let now = rssBytes(pid);
    while (now > limit && Date.now() - idleSince < idleMs) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      now = rssBytes(pid);
    }
    console.info(
      `memory: RSS ${(before / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB, ${(now / MiB).toFixed(0)} MiB ${((Date.now() - idleSince) / 1000).toFixed(1)} s after the last client left (limit ${(limit / MiB).toFixed(0)} MiB)`,
    );
    // The slow consumers must really have held memory, or the check below proves nothing.
    expect(peak).toBeGreaterThan(limit);
    expect(now).toBeLessThanOrEqual(limit);
  }, 240_000);
});
