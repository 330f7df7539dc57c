import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Runs `start` on ports picked free, picking again when the server found one taken: a port is
 * free when picked, but a test file running in parallel may bind it before the server does.
 */
export async function onFreePorts<T>(start: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const clash = error instanceof Error && /address already in use/i.test(error.message);
      if (!clash || attempt >= attempts) throw error;
    }
  }
}
