import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type NatsServerOptions, type RunningNatsServer, startNatsServer } from './nats-server.js';

/**
 * The workspace's built slipstream-server bin. Found by path rather than as a dependency, so
 * that the server's own tests can keep depending on this package.
 */
export const slipstreamServerBin = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'apps',
  'server',
  'bin',
  'slipstream-server.js',
);

/**
 * Starts slipstream-server as its own process with the same config file startNatsServer writes
 * for nats-server, so one test can run against both.
 */
export function startSlipstreamServer(
  options: Omit<NatsServerOptions, 'bin'> = {},
): Promise<RunningNatsServer> {
  return startNatsServer({ ...options, bin: slipstreamServerBin });
}
