import type { Server } from 'node:net';

/**
 * Connections the kernel may hold completed for us before we accept them (capped by
 * net.core.somaxconn). Node's default of 511 overflows when thousands of clients reconnect at
 * once, and an overflowed client can wait forever for an INFO; nats-server asks for 4096 too.
 */
const ACCEPT_BACKLOG = 4096;

/**
 * Starts a listener (client or HTTP) and resolves with the port it bound, the real one when port 0
 * was asked for; rejects with the listen error (port taken, bad address).
 */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: ACCEPT_BACKLOG }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
