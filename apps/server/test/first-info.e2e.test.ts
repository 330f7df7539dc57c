import {
  msToFirstInfo,
  requireSystemComponent,
  slipstreamServerBin,
} from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';

// Harnesses start a server, wait a little and connect (nats.c's suite gives two
// servers 500 ms), but slipstream-server took 0.6-1.5 s to greet its first client, loading
// JetStream's schemas, SQLite and ws whatever its configuration. Measured here from the spawn of
// the built binary to the first INFO bytes on a TCP socket, nats-server 2.9.10 beside it as the
// reference (tens of milliseconds).

/** What a harness that sleeps 500 ms before connecting needs. */
const LIMIT_MS = 500;
/**
 * A start on a shared, busy machine can be slow for reasons of the machine's (CI runs two test
 * files at once on two cores): the best of five tries is what the binary can do, so the tries
 * stop at the first one under the limit.
 */
const TRIES = 5;

const servers = [
  {
    name: 'slipstream-server',
    command: () => process.execPath,
    args: (port: number) => [slipstreamServerBin, '-a', '127.0.0.1', '-p', String(port)],
  },
  {
    name: 'nats-server',
    command: () => requireSystemComponent('nats-server'),
    args: (port: number) => ['-a', '127.0.0.1', '-p', String(port)],
  },
];

const configurations = [
  { name: 'no options', flags: [] },
  { name: '--user --pass', flags: ['--user', 'u', '--pass', 'p'] },
];

describe.each(servers)('$name: spawn to first INFO', ({ command, args }) => {
  it.each(configurations)('is under 500 ms with $name', async ({ flags }) => {
    const tries: number[] = [];
    while (tries.length < TRIES && !tries.some((ms) => ms < LIMIT_MS)) {
      tries.push(await msToFirstInfo(command(), (port) => [...args(port), ...flags]));
    }
    expect(Math.min(...tries), `tries: ${tries.map(Math.round).join(', ')} ms`).toBeLessThan(
      LIMIT_MS,
    );
  });
});
