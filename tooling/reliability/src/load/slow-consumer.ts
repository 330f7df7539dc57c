/**
 * One stalled subscriber among fast ones: a publisher offers a steady load on `load` to fast
 * raw-socket subscribers that count what reaches them, while a flood subject carries bulk
 * traffic to one more subscriber. In the stalled run that subscriber stops reading (its socket
 * paused), so the server must buffer for it and cut it off; in the baseline it reads. The same
 * traffic in both runs, so the fast subscribers' rates compare directly.
 */
import type { Socket } from 'node:net';
import { connectRawSocket, startNatsServer } from '@slipstream/test-servers';

export interface SlowConsumerOptions {
  /** The server's executable (nats-server 2.9.10 when undefined). */
  readonly bin?: string;
  readonly fastSubscribers: number;
  /** Messages a second offered on `load` (each delivered to every fast subscriber). */
  readonly rate: number;
  /** How long the fast subscribers' rate is measured. */
  readonly measureMs: number;
  /** Whether the flood's subscriber stops reading. */
  readonly stalled: boolean;
}

export interface SlowConsumerRun {
  /** Mean messages a second a fast subscriber received over the measurement. */
  readonly fastRate: number;
  /** The slowest fast subscriber's rate. */
  readonly slowestFastRate: number;
  /** Whether the server logged a slow consumer (and so cut the stalled one off). */
  readonly cutOff: boolean;
  /** Milliseconds from the stall until the server logged "Slow Consumer Detected" (±100 ms). */
  readonly cutOffAfterMs?: number;
}

const PAYLOAD = 'p'.repeat(128);
// Every delivery is the same frame: `MSG load 1 128\r\n<128 bytes>\r\n`, so bytes count messages.
const FRAME_BYTES = `MSG load 1 ${PAYLOAD.length}\r\n`.length + PAYLOAD.length + 2;
const FLOOD_PER_TICK = `PUB flood ${32 * 1024}\r\n${'f'.repeat(32 * 1024)}\r\n`;
const TICK_MS = 10;
const WARMUP_MS = 1_000;
/** Small limits so that a stalled subscriber is cut off in seconds rather than minutes. */
export const SLOW_CONSUMER_CONFIG = 'max_pending: 2097152\nwrite_deadline: "2s"';

export async function runSlowConsumer(options: SlowConsumerOptions): Promise<SlowConsumerRun> {
  const server = await startNatsServer({ bin: options.bin, config: SLOW_CONSUMER_CONFIG });
  const sockets: Socket[] = [];
  try {
    const received: number[] = [];
    for (let i = 0; i < options.fastSubscribers; i++) {
      const socket = await connectRawSocket(server.port, 'SUB load 1\r\n');
      received.push(0);
      socket.on('data', (chunk: Buffer) => {
        received[i] += chunk.length;
      });
      sockets.push(socket);
    }
    const flood = await connectRawSocket(server.port, 'SUB flood 1\r\n');
    flood.on('data', () => {});
    sockets.push(flood);
    const publisher = await connectRawSocket(server.port);
    publisher.on('data', () => {});
    sockets.push(publisher);

    const started = performance.now();
    let sent = 0;
    const pacer = setInterval(() => {
      const owed = Math.floor(((performance.now() - started) / 1_000) * options.rate) - sent;
      if (owed <= 0) return;
      publisher.write(`PUB load ${PAYLOAD.length}\r\n${PAYLOAD}\r\n`.repeat(owed) + FLOOD_PER_TICK);
      sent += owed;
    }, TICK_MS);
    try {
      await sleep(WARMUP_MS);
      if (options.stalled) flood.pause();
      const before = [...received];
      const from = performance.now();
      let cutOffAfterMs: number | undefined;
      const watcher = setInterval(() => {
        if (cutOffAfterMs === undefined && server.output().includes('Slow Consumer Detected')) {
          cutOffAfterMs = Math.round(performance.now() - from);
        }
      }, 100);
      await sleep(options.measureMs);
      clearInterval(watcher);
      const seconds = (performance.now() - from) / 1_000;
      const rates = received.map((bytes, i) => (bytes - before[i]) / FRAME_BYTES / seconds);
      return {
        fastRate: Math.round(rates.reduce((a, b) => a + b, 0) / rates.length),
        slowestFastRate: Math.round(Math.min(...rates)),
        cutOff: server.output().includes('Slow Consumer Detected'),
        cutOffAfterMs,
      };
    } finally {
      clearInterval(pacer);
    }
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
