/**
 * Server benchmark (issue #3): the official client (@nats-io/transport-node) drives our server and
 * nats-server 2.9.10, both child processes of this one, in the same run; ratio ours / nats-server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { peakRssBytes, type ServerProcess, startServerProcess } from '@slipstream/test-servers';
import { alternateRounds, pick, type Sample, type Side } from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import {
  type BenchConnection,
  COUNTS,
  describeCounts,
  idleConnections,
  publishOnly,
  pubSub,
  requestReply,
  type Target,
} from './nats-workloads.js';

/** The slipstream-server app's bin, found through its package: it runs as its own process. */
const ourServerMain = (() => {
  const packageJson = createRequire(import.meta.url).resolve('slipstream-server/package.json');
  const { bin } = JSON.parse(readFileSync(packageJson, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(packageJson), bin['slipstream-server']);
})();
const officialClient = (url: string) => connect({ servers: url }) as Promise<BenchConnection>;
const MiB = 1024 * 1024;

/** Both servers of one phase of the benchmark; `ours` is a reason when it cannot run. */
interface Servers {
  readonly reference: ServerProcess;
  readonly ours: ServerProcess | { readonly skipped: string };
}

export async function serverBenchmark(options: { rounds: number }): Promise<RatioTable> {
  const table = new RatioTable(
    'Server: slipstream-server vs nats-server 2.9.10, both driven by @nats-io/transport-node',
    'nats-server',
    'slipstream',
  );
  const rounds = (
    servers: Servers,
    label: string,
    workload: (target: Target) => Promise<Sample>,
    warmup = true,
  ) => {
    const ours = servers.ours;
    const oursSide: Side =
      'skipped' in ours
        ? { name: 'slipstream', skipped: ours.skipped }
        : { name: 'slipstream', measure: () => workload(targetOf(ours)) };
    return alternateRounds(
      { rounds: options.rounds, label, warmup },
      { name: 'nats-server', measure: () => workload(targetOf(servers.reference)) },
      oursSide,
    );
  };

  const skipped = await withServers(async (servers) => {
    const throughput = async (label: string, workload: (target: Target) => Promise<Sample>) => {
      const result = await rounds(servers, label, workload);
      table.add({
        name: label,
        unit: 'msgs/s',
        better: 'higher',
        target: 0.9,
        ...pick(result, 'msgsPerSecond'),
      });
      table.add({
        name: `server CPU, ${label}`,
        unit: 's per 1M msgs',
        better: 'lower',
        target: 2,
        ...pick(result, 'serverCpuSecondsPerMillion'),
      });
    };
    await throughput('publish-only 16 B', (t) => publishOnly(t, COUNTS.publishOnly, 16));
    await throughput('pub→sub 16 B', (t) =>
      pubSub(t, { count: COUNTS.pubSub16, size: 16, subscribers: 1 }),
    );
    await throughput('pub→sub 1 KiB', (t) =>
      pubSub(t, { count: COUNTS.pubSub1k, size: 1024, subscribers: 1 }),
    );
    await throughput('fan-out 1→4 16 B', (t) =>
      pubSub(t, { count: COUNTS.fanOut, size: 16, subscribers: 4 }),
    );
    await throughput('queue group of 4, 16 B', (t) =>
      pubSub(t, { count: COUNTS.queueGroup, size: 16, subscribers: 4, queue: 'workers' }),
    );

    const latency = await rounds(servers, 'request/reply 16 B', (t) =>
      requestReply(t, COUNTS.requests, 16),
    );
    table.add({
      name: 'request/reply p50',
      unit: 'µs',
      better: 'lower',
      target: 1.2,
      ...pick(latency, 'p50Micros'),
    });
    table.add({
      name: 'request/reply p99',
      unit: 'µs',
      better: 'lower',
      ...pick(latency, 'p99Micros'),
    });

    table.add({
      name: 'peak RSS over the workloads above',
      unit: 'MiB',
      better: 'lower',
      reference: peakRssBytes(servers.reference.child.pid!) / MiB,
      ours: 'child' in servers.ours ? peakRssBytes(servers.ours.child.pid!) / MiB : undefined,
    });
  });

  // A fresh pair of processes for every round: the figure is what 1,000 idle connections cost,
  // not what the traffic above or the previous round's connections left behind in the heap.
  const idleOnFreshServer =
    (start: () => Promise<ServerProcess | { skipped: string }>) => async (): Promise<Sample> => {
      const server = await start();
      if ('skipped' in server) throw new Error(server.skipped);
      try {
        return await idleConnections(targetOf(server), COUNTS.idleConnections);
      } finally {
        await server.stop();
      }
    };
  const idle = await alternateRounds(
    { rounds: options.rounds, label: IDLE_LABEL, warmup: false },
    { name: 'nats-server', measure: idleOnFreshServer(startReference) },
    skipped
      ? { name: 'slipstream', skipped }
      : { name: 'slipstream', measure: idleOnFreshServer(startOurServer) },
  );
  table.add({
    name: `RSS with ${IDLE_LABEL}`,
    unit: 'MiB',
    better: 'lower',
    reference: idle.reference.rssBytes / MiB,
    ours: idle.ours === undefined ? undefined : idle.ours.rssBytes / MiB,
    roundRatios: idle.roundRatios.rssBytes,
  });

  if (skipped) table.note(`slipstream side skipped: ${skipped}`);
  table.note(
    describeCounts([
      'publishOnly',
      'pubSub16',
      'pubSub1k',
      'fanOut',
      'queueGroup',
      'requests',
      'idleConnections',
    ]),
  );
  table.note(
    'Client and servers share the 2 cores, and the official client is usually the bottleneck: msgs/s ratios near 1.0 say little; the server CPU rows show the servers’ own cost. Peak RSS is one reading (VmHWM) after the throughput and latency rounds; idle-connection RSS (VmRSS) is measured on a freshly started pair of servers in every round. Issue #3 target for idle connections: under 100 MiB RSS (absolute, not a ratio).',
  );
  return table;
}

const IDLE_LABEL = '1,000 idle connections';

/** Starts nats-server and ours, runs `phase`, stops both; returns why ours was skipped, if it was. */
async function withServers(
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

function startReference(): Promise<ServerProcess> {
  return startServerProcess('nats-server', (port) => ['-p', String(port), '-a', '127.0.0.1']);
}

async function startOurServer(): Promise<ServerProcess | { skipped: string }> {
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

function targetOf(server: ServerProcess): Target {
  return { connect: officialClient, url: server.url, serverPid: server.child.pid! };
}
