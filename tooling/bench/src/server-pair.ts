/**
 * The two server processes the server-side benchmarks compare: nats-server 2.9.10 and our
 * slipstream-server, each a child of this process on a free port, driven through the official client.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import {
  requireSystemComponent,
  type ServerProcess,
  startServerProcess,
} from '@slipstream/test-servers';
import { alternateRounds, type RoundsResult, type Sample, type Side } from './harness/rounds.js';
import type { BenchConnection, Target } from './nats-workloads.js';

/** The slipstream-server app's bin, found through its package: it runs as its own process. */
const ourServerMain = (() => {
  const packageJson = createRequire(import.meta.url).resolve('slipstream-server/package.json');
  const { bin } = JSON.parse(readFileSync(packageJson, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(packageJson), bin['slipstream-server']);
})();
const officialClient = (url: string) => connect({ servers: url }) as Promise<BenchConnection>;

/** Both servers of one phase of a benchmark; `ours` is a reason when it cannot run. */
export interface Servers {
  readonly reference: ServerProcess;
  readonly ours: ServerProcess | { readonly skipped: string };
}

/** Starts nats-server and ours, runs `phase`, stops both; returns why ours was skipped, if it was. */
export async function withServers(
  phase: (servers: Servers) => Promise<void>,
): Promise<string | undefined> {
  const reference = await startReference();
  const ours = await startOurServer();
  try {
    await phase({ reference, ours });
  } finally {
    await Promise.all([reference.stop(), 'stop' in ours ? ours.stop() : undefined]);
  }
  return 'skipped' in ours ? ours.skipped : undefined;
}

/** Runs `workload` against both servers in alternating rounds (ours skipped when it cannot run). */
export function serverRounds(
  servers: Servers,
  options: { rounds: number; label: string; warmup?: boolean },
  workload: (target: Target) => Promise<Sample>,
): Promise<RoundsResult> {
  const ours = servers.ours;
  const oursSide: Side =
    'skipped' in ours
      ? { name: 'slipstream', skipped: ours.skipped }
      : { name: 'slipstream', measure: () => workload(targetOf(ours)) };
  return alternateRounds(
    { warmup: true, ...options },
    { name: 'nats-server', measure: () => workload(targetOf(servers.reference)) },
    oursSide,
  );
}

/** nats-server 2.9.10 on a free port, found by requireSystemComponent. */
export function startReference(): Promise<ServerProcess> {
  return startServerProcess(requireSystemComponent('nats-server'), (port) => [
    '-p',
    String(port),
    '-a',
    '127.0.0.1',
  ]);
}

export async function startOurServer(): Promise<ServerProcess | { skipped: string }> {
  if (!existsSync(ourServerMain)) {
    return {
      skipped: `@slipstream/server not built yet (${ourServerMain} missing; run \`pnpm build\` first)`,
    };
  }
  try {
    return await startServerProcess(process.execPath, (port) => [
      ourServerMain,
      '-p',
      String(port),
      '-a',
      '127.0.0.1',
    ]);
  } catch (error) {
    return { skipped: `slipstream-server did not start: ${String(error).slice(0, 300)}` };
  }
}

export function targetOf(server: ServerProcess): Target {
  return { connect: officialClient, url: server.url, serverPid: server.child.pid! };
}
