/**
 * How much a WebSocket client can make a server hold with frames it never finishes: a few
 * connections each send CONNECT, then the first 64 MiB of a binary frame that claims 90 MiB,
 * filled with PINGs. A server that parses frames as they arrive holds little (nats-server); one
 * that waits for the whole message holds all of it, per connection.
 */

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { rssBytes, startNatsServer } from '@slipstream/test-servers';

export const UNFINISHED_CONNECTIONS = 4;
const CLAIMED_BYTES = 90 * 2 ** 20;
const SENT_BYTES = 64 * 2 ** 20;

/** The server's RSS growth in MiB while the unfinished frames are pending. */
export async function unfinishedFrameGrowthMiB(bin?: string): Promise<number> {
  const server = await startNatsServer({ bin, websocket: true });
  const pid = server.process.pid as number;
  const sockets: Socket[] = [];
  try {
    const before = rssBytes(pid);
    const pings = Buffer.from('PING\r\n'.repeat(2 ** 20 / 6 + 1)).subarray(0, 2 ** 20);
    for (let c = 0; c < UNFINISHED_CONNECTIONS; c++) {
      const socket = connect({ port: server.wsPort as number, host: '127.0.0.1' });
      sockets.push(socket);
      socket.on('error', () => {});
      socket.on('data', () => {});
      await once(socket, 'connect');
      socket.write(
        'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      socket.write(unmaskedHeaderWithZeroMask(Buffer.byteLength(CONNECT)));
      socket.write(CONNECT);
      socket.write(unmaskedHeaderWithZeroMask(CLAIMED_BYTES));
      for (let sent = 0; sent < SENT_BYTES && !socket.destroyed; sent += pings.length) {
        if (!socket.write(pings)) await drainedOrClosed(socket);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return Math.round((rssBytes(pid) - before) / 2 ** 20);
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
  }
}

/** Resolves when the socket can take more, or is gone (a server may close it: that is fine). */
function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

const CONNECT = 'CONNECT {"verbose":false,"pedantic":false}\r\n';

/** A client binary frame header with a zero mask key, so the payload bytes go as they are. */
function unmaskedHeaderWithZeroMask(length: number): Buffer {
  const header = Buffer.alloc(14);
  header[0] = 0x82;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}
