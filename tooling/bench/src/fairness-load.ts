/**
 * The load of the fairness benchmark, run in a process of its own (fairness.ts forks it) so that
 * its event loop does not delay the requests being timed: one publisher sending 128 B messages
 * at full speed to a subject with 20 subscribers. All of them are raw sockets that parse nothing
 * (the publisher writes pre-encoded PUB batches, the subscribers count bytes), so the server, not
 * a client library, sets the pace. Arguments: the server URL and the FairnessLoad as JSON.
 *
 * Protocol with the parent (IPC): this process sends `{ ready: true }` once every connection is
 * set up; the parent sends `{ durationMs }`; this process publishes for that long, waits until
 * every subscriber has every message, sends a FairnessLoadResult and exits.
 */
import { once } from 'node:events';
import { connectRawSocket } from '@slipstream/test-servers';
import type { FairnessLoad, FairnessLoadResult } from './fairness.js';

/** PUB frames per socket write: about 60 KiB, close to one socket read on the server. */
const FRAMES_PER_WRITE = 400;
const SID = '1';

async function main(url: URL, load: FairnessLoad): Promise<void> {
  const { subject, subscribers: count, size } = load;
  const handshake = (setup: string) => connectRawSocket(Number(url.port), setup, url.hostname);
  const publisher = await handshake('');
  const subscribers = await Promise.all(
    Array.from({ length: count }, () => handshake(`SUB ${subject} ${SID}\r\n`)),
  );
  // After the handshake each subscriber receives nothing but MSG frames of this exact size.
  const msgFrameBytes = `MSG ${subject} ${SID} ${size}\r\n`.length + size + 2;
  let deliveredBytes = 0;
  for (const socket of subscribers) socket.on('data', (chunk) => (deliveredBytes += chunk.length));

  const pubFrame = `PUB ${subject} ${size}\r\n${'x'.repeat(size)}\r\n`;
  const batch = Buffer.from(pubFrame.repeat(FRAMES_PER_WRITE), 'latin1');
  const windowBytes = Math.floor(load.windowBytes / pubFrame.length) * msgFrameBytes * count;

  const durationMs = await new Promise<number>((resolve) => {
    process.once('message', (message: { durationMs: number }) => resolve(message.durationMs));
    process.send!({ ready: true });
  });
  const start = performance.now();
  const end = start + durationMs;
  let published = 0;
  const behind = () => published * msgFrameBytes * count - deliveredBytes;
  while (performance.now() < end) {
    if (behind() > windowBytes) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    published += FRAMES_PER_WRITE;
    if (!publisher.write(batch)) await once(publisher, 'drain');
  }
  while (behind() > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const result: FairnessLoadResult = { published, seconds: (performance.now() - start) / 1000 };
  process.send!(result);
  for (const socket of [publisher, ...subscribers]) socket.destroy();
  process.disconnect();
}

await main(new URL(process.argv[2]!), JSON.parse(process.argv[3]!) as FairnessLoad);
