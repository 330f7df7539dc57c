import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/**
 * A raw TCP connection to a NATS server, past CONNECT (verbose and pedantic off) and `setup`
 * (SUBs, say): resolves once the server's PONG shows it handled both. For tests and benchmarks
 * that write and read the protocol themselves; socket errors are left to the caller's checks.
 */
export async function connectRawSocket(
  port: number,
  setup = '',
  host = '127.0.0.1',
): Promise<Socket> {
  const socket = connect({ port, host, noDelay: true });
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(`CONNECT {"verbose":false,"pedantic":false}\r\n${setup}PING\r\n`);
  let seen = '';
  for await (const chunk of socket.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    seen += chunk.toString('latin1');
    if (seen.includes('PONG\r\n')) break;
  }
  return socket;
}
