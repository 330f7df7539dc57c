/**
 * Many idle-ish connections: `connections` raw sockets, each with 2 subscriptions (its own
 * subject and one all share), and a slow trickle of messages, against one server process. The
 * server's RSS before and after gives its memory per connection.
 */
import type { Socket } from 'node:net';
import { connectRawSocket, rssBytes, startNatsServer } from '@slipstream/test-servers';

export interface ManyConnectionsRun {
  readonly connections: number;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  /** (RSS after − RSS before) / connections, in KiB. */
  readonly kibPerConnection: number;
  /** Seconds to open them all (each past its CONNECT, SUBs and a PONG). */
  readonly connectSeconds: number;
  /** Messages of the trickle published, deliveries they make, deliveries the sockets received. */
  readonly published: number;
  readonly expectedDeliveries: number;
  readonly delivered: number;
  /** Connections the server closed during the run. */
  readonly dropped: number;
}

const PARALLEL_CONNECTS = 100;
/** The trickle: one message to one connection's subject per tick, one to all every 2 s. */
const TICK_MS = 10;
const BROADCAST_EVERY_TICKS = 200;

export async function runManyConnections(options: {
  bin?: string;
  connections: number;
  trickleMs: number;
}): Promise<ManyConnectionsRun> {
  // Each server holds one descriptor a connection; ask for room beyond the default 1024 or 20000.
  const server = await startNatsServer({ bin: options.bin, config: 'max_connections: 100000' });
  const pid = server.process.pid as number;
  const sockets: Socket[] = [];
  try {
    const publisher = await connectRawSocket(server.port);
    publisher.on('data', () => {});
    await settle();
    const rssBefore = rssBytes(pid);
    const started = performance.now();
    let delivered = 0;
    let dropped = 0;
    for (let next = 0; next < options.connections; ) {
      const batch = Math.min(PARALLEL_CONNECTS, options.connections - next);
      const opened = await Promise.all(
        Array.from({ length: batch }, (_, k) =>
          connectRawSocket(server.port, `SUB trickle.${next + k} 1\r\nSUB trickle.all 2\r\n`),
        ),
      );
      for (const socket of opened) {
        socket.on('data', (chunk: Buffer) => {
          // Every delivery is one MSG line; counting "MSG " is close enough for a trickle.
          delivered += chunk.toString('latin1').split('MSG ').length - 1;
        });
        socket.once('close', () => dropped++);
        sockets.push(socket);
      }
      next += batch;
    }
    const connectSeconds = (performance.now() - started) / 1_000;
    let published = 0;
    let expectedDeliveries = 0;
    let tick = 0;
    const trickle = setInterval(() => {
      tick++;
      publisher.write(`PUB trickle.${tick % options.connections} 5\r\nhello\r\n`);
      published++;
      expectedDeliveries++;
      if (tick % BROADCAST_EVERY_TICKS === 0) {
        publisher.write('PUB trickle.all 9\r\nbroadcast\r\n');
        published++;
        expectedDeliveries += options.connections;
      }
    }, TICK_MS);
    await new Promise((resolve) => setTimeout(resolve, options.trickleMs));
    clearInterval(trickle);
    // Also the time for the last deliveries to arrive.
    await settle();
    const rssAfter = rssBytes(pid);
    const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
    return {
      connections: options.connections,
      rssBeforeMiB: mib(rssBefore),
      rssAfterMiB: mib(rssAfter),
      kibPerConnection: Math.round(((rssAfter - rssBefore) / 1024 / options.connections) * 10) / 10,
      connectSeconds: Math.round(connectSeconds * 10) / 10,
      published,
      expectedDeliveries,
      delivered,
      dropped,
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
  }
}

/** A moment for the server's garbage collector and allocator to catch up before a reading. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));
