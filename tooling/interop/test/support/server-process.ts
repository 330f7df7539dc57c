import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort, type ServerProcess, startServerProcess } from '@slipstream/test-servers';

/** The built app, found through the workspace dependency rather than a relative path. */
export const serverMain = join(
  dirname(createRequire(import.meta.url).resolve('slipstream-server/package.json')),
  'dist',
  'main.js',
);

/** Runs `node apps/server/dist/main.js` on free 127.0.0.1 ports with these extra arguments. */
export async function startSlipstreamProcess(
  args: readonly string[] = [],
): Promise<ServerProcess & { readonly httpPort: number }> {
  const httpPort = await freePort();
  const server = await startServerProcess(process.execPath, (port) => [
    serverMain,
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    '-m',
    String(httpPort),
    ...args,
  ]);
  return { ...server, httpPort };
}
