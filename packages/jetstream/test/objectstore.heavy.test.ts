import { createHash } from 'node:crypto';
import type { NatsConnection } from '@slipstream/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '../src/mod.js';
import { Objm } from '../src/objectstore/mod.js';
import { generatedBytes } from './generated-bytes.js';
import { streamServers, useJetStreamServer } from './servers.js';

const MiB = 1024 * 1024;
const SIZE = 50 * MiB;

/** The highest resident set size seen while `work` runs, sampled every few milliseconds. */
async function peakRss(work: () => Promise<void>): Promise<number> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss);
}

describe.each(streamServers)('a 50 MiB object against $name', (kind) => {
  const server = useJetStreamServer(kind);
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await server.connect();
  });

  it('goes in and out streamed, never whole in memory', async () => {
    const store = await new Objm(jetstream(nc)).create('BIG');
    // warm up: code paths compiled and the connection's buffers grown before the baseline
    await store.putBlob({ name: 'warm' }, new Uint8Array(MiB));
    await store.getBlob('warm');
    const baseline = process.memoryUsage().rss;

    const written = createHash('sha256');
    const read = createHash('sha256');
    let readBytes = 0;
    let error: Error | null = null;
    const peak = await peakRss(async () => {
      const info = await store.put({ name: 'big' }, generatedBytes(SIZE, written));
      expect(info).toMatchObject({ size: SIZE, chunks: SIZE / (128 * 1024) });
      const result = await store.get('big');
      const reader = result!.data.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        read.update(r.value);
        readBytes += r.value.length;
      }
      error = await result!.error;
    });

    expect(error).toBeNull();
    expect(readBytes).toBe(SIZE);
    expect(read.digest('hex')).toBe(written.digest('hex'));
    const aboveBaseline = (peak - baseline) / MiB;
    console.log(`50 MiB round trip: peak RSS ${aboveBaseline.toFixed(1)} MiB above the baseline`);
    expect(aboveBaseline).toBeLessThan(64);
  });
});
