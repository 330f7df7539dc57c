import type { Server } from 'node:net';

/**
 * Starts a listener (client or HTTP) and resolves with the port it bound, the real one when port 0
 * was asked for; rejects with the listen error (port taken, bad address).
 */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
