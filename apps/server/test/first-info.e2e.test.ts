import { connect } from 'node:net';
import {
  freePort,
  requireSystemComponent,
  runProcess,
  slipstreamServerBin,
} from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';

// Issue #20: harnesses start a server, wait a little and connect (nats.c's suite gives two
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

/** Spawns the server and times it until a client connecting over and over receives INFO. */
async function msToFirstInfo(
  command: string,
  args: (port: number) => readonly string[],
): Promise<number> {
  for (;;) {
    const port = await freePort();
    const started = performance.now();
    const server = runProcess(command, args(port));
    try {
      await firstInfo(port, () => server.child.exitCode !== null);
      return performance.now() - started;
    } catch (error) {
      // A test file running in parallel may bind the port between freePort() and the server.
      if (!/address already in use/i.test(server.output())) {
        throw new Error(`${(error as Error).message}: ${server.output()}`);
      }
    } finally {
      await server.stop('SIGKILL');
    }
  }
}

/** Connects until the port answers with INFO; fails once `exited` or after 10 s. */
async function firstInfo(port: number, exited: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!(await receivedInfo(port, deadline))) {
    if (exited()) throw new Error(`the server exited before sending INFO on ${port}`);
    if (performance.now() > deadline) throw new Error(`no INFO on ${port} after 10 s`);
    // As tight as a retry can be without taking the CPU the server is starting on.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Whether one connection to the port received bytes starting with INFO; false when it was
 * refused or closed, or nothing came by the deadline.
 */
function receivedInfo(port: number, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => socket.destroy(), Math.max(deadline - performance.now(), 0));
    socket.once('error', () => resolve(false));
    socket.once('data', (chunk) => {
      resolve(chunk.toString('latin1').startsWith('INFO '));
      socket.destroy();
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
