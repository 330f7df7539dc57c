import { join } from 'node:path';

/**
 * The two servers a config-file test runs side by side: nats-server 2.9.10 (startNatsServer's
 * default `bin`) and the slipstream-server bin, so any difference fails the test.
 */
export const configServers = [
  { name: 'nats-server', bin: undefined },
  {
    name: 'slipstream-server',
    bin: join(import.meta.dirname, '..', 'bin', 'slipstream-server.js'),
  },
];
