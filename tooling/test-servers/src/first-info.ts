import { connect } from 'node:net';
import { freePort } from './free-port.js';
import { cpuSeconds } from './process-stats.js';
import { runProcess } from './server-process.js';

export interface FirstInfoCost {
  /** Milliseconds from the spawn to the first INFO bytes: what a harness waits for. */
  ms: number;
  /**
   * The CPU milliseconds the server's process had spent by then (all its threads): what its
   * start costs whatever else the machine runs, where `ms` grows with the machine's load.
   */
  cpuMs: number;
}

/**
 * The cost of a server's start up to the first INFO bytes a client connecting over and over
 * receives on its port (`args` receives a free port); the server is stopped after.
 */
export async function firstInfoCost(
  command: string,
  args: (port: number) => readonly string[],
): Promise<FirstInfoCost> {
  for (;;) {
    const port = await freePort();
    const started = performance.now();
    const server = runProcess(command, args(port));
    try {
      await firstInfo(port, () => server.child.exitCode !== null);
      const ms = performance.now() - started;
      return { ms, cpuMs: cpuSeconds(server.child.pid!) * 1000 };
    } catch (error) {
      // A test file running in parallel may bind the port between freePort() and the server.
      if (!/address already in use/i.test(server.output())) {
        throw new Error(`${(error as Error).message}: ${server.output()}`);
      }
    } finally {
      // Stopped as an operator stops it, so that the next start on the same store finds what a
      // clean shutdown leaves (nats-server's stream state, our stores' seals), as a restart does.
      await server.stop();
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
