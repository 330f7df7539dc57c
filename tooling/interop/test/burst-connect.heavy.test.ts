import { fileURLToPath } from 'node:url';
import {
  requireSystemComponent,
  runProcess,
  type ServerProcess,
  startServerProcess,
} from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { serverMain } from './support/server-process.js';

// A server restart with thousands of reconnecting clients: 10,000 connections at once must all
// get INFO promptly. nats-server manages it within about a second; a server that listens with a
// small backlog lets the kernel's accept queue overflow, and the overflowed clients, their
// handshake completed by SYN cookies, then wait forever for an INFO nobody will send.

const connections = 10_000;
/** Room for the connections plus the process's own files (the default limit may be 1,024). */
const fileLimit = 4 * connections;
const connector = fileURLToPath(new URL('./support/burst-connect.mjs', import.meta.url));

/** Runs `command` under bash with the file limit raised (allowed for root, or up to the hard limit). */
function withFileLimit(command: string): readonly string[] {
  return ['-c', `ulimit -n ${fileLimit} 2>/dev/null || ulimit -n hard; exec ${command}`];
}

const servers = [
  {
    name: 'slipstream-server',
    command: (port: number) => `"${process.execPath}" "${serverMain}" -a 127.0.0.1 -p ${port}`,
  },
  {
    name: 'nats-server 2.9.10',
    command: (port: number) => `"${requireSystemComponent('nats-server')}" -a 127.0.0.1 -p ${port}`,
  },
];

interface BurstResult {
  greeted: number;
  failed: number;
  stuck: number;
  slowestMs: number;
}

describe.each(servers)('a burst of connections against $name', ({ command }) => {
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it(`greets ${connections.toLocaleString('en')} simultaneous connections, none left without INFO`, async () => {
    server = await startServerProcess('bash', (port) => withFileLimit(command(port)));
    const run = runProcess(
      'bash',
      withFileLimit(`"${process.execPath}" "${connector}" ${server.port} ${connections} 20000`),
    );
    expect(await run.exit, run.output()).toBe(0);
    const result = JSON.parse(run.output().trim().split('\n').at(-1)!) as BurstResult;
    expect(result, run.output()).toMatchObject({ greeted: connections, failed: 0, stuck: 0 });
  }, 60_000);
});
