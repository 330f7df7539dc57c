/**
 * A 50 MiB object uploaded with the server-assembled flow (Objm's `serverApi`) and streamed back
 * by request, with our server as its own process so its resident memory can be read. The server
 * must never hold the object whole: it hashes chunks as they pass and stores them, and sends a
 * get a flow control window (2 MiB) at a time. The bound, 48 MiB above the RSS after a warm-up,
 * is under the object's 50 MiB and leaves room for the garbage V8 lets pile up before it
 * collects, and what the store and the sockets buffer (8 chunk requests in flight from the
 * client, the window, the file store's writes). Measured on a shared 2-core machine: 38 MiB for
 * 50 MiB, and 45 MiB for a 150 MiB object, so it does not grow with the object.
 */
import { createHash } from 'node:crypto';
import { connect, type NatsConnection } from '@slipstream/client';
import {
  peakRssBytes,
  type RunningNatsServer,
  rssBytes,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Objm } from '../src/objectstore/mod.js';
import { generatedBytes } from './generated-bytes.js';

const MiB = 1024 * 1024;
const SIZE = 50 * MiB;
const BOUND = 48 * MiB;

let server: RunningNatsServer;
let nc: NatsConnection;
beforeAll(async () => {
  server = await startSlipstreamServer({ jetstream: true });
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

it("a 50 MiB object goes in assembled by the server and comes back streamed, the server's memory bounded", async () => {
  const pid = server.process.pid!;
  await new Objm(nc).create('BIG');
  const store = await new Objm(nc, { serverApi: true }).open('BIG');
  // warm up: the server's code paths compiled and its buffers grown before the baseline
  await store.putBlob({ name: 'warm' }, new Uint8Array(4 * MiB));
  await store.getBlob('warm');
  const baseline = rssBytes(pid);
  const peakBefore = peakRssBytes(pid);

  const written = createHash('sha256');
  const info = await store.put({ name: 'big' }, generatedBytes(SIZE, written), { size: SIZE });
  expect(info).toMatchObject({ size: SIZE, chunks: SIZE / (128 * 1024) });
  const afterPut = peakRssBytes(pid);

  const read = createHash('sha256');
  let readBytes = 0;
  const result = await store.get('big');
  const reader = result!.data.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    read.update(r.value);
    readBytes += r.value.length;
  }
  expect(await result!.error).toBeNull();
  expect(readBytes).toBe(SIZE);
  expect(read.digest('hex')).toBe(written.digest('hex'));
  const afterGet = peakRssBytes(pid);

  const above = (bytes: number) => ((bytes - baseline) / MiB).toFixed(1);
  console.log(
    `server RSS: baseline ${(baseline / MiB).toFixed(1)} MiB (peak so far ${(peakBefore / MiB).toFixed(1)}); peak above the baseline during the put ${above(afterPut)} MiB, after the get ${above(afterGet)} MiB`,
  );
  expect(afterGet - baseline).toBeLessThan(BOUND);
});
