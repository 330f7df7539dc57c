/**
 * Server benchmark (issue #3): the official client (@nats-io/transport-node) drives our server and
 * nats-server 2.9.10, both child processes of this one, in the same run; ratio ours / nats-server.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { peakRssBytes } from './harness/proc.js';
import { alternateRounds, pick, type Side } from './harness/rounds.js';
import { type ServerProcess, startServerProcess } from './harness/server-process.js';
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

/** The slipstream-server app; a path, not an import: it runs as its own process. */
const ourServerMain = fileURLToPath(new URL('../../../apps/server/dist/main.js', import.meta.url));
const officialClient = (url: string) => connect({ servers: url }) as Promise<BenchConnection>;
const MiB = 1024 * 1024;

export async function serverBenchmark(options: { rounds: number }): Promise<RatioTable> {
  const table = new RatioTable(
    'Server: slipstream-server vs nats-server 2.9.10, both driven by @nats-io/transport-node',
    'nats-server',
    'slipstream',
  );
  const reference = await startServerProcess('nats-server', (port) => [
    '-p',
    String(port),
    '-a',
    '127.0.0.1',
  ]);
  const ours = await startOurServer(table);
  try {
    const sides = (workload: (target: Target) => Promise<Record<string, number>>): [Side, Side] => [
      { name: 'nats-server', measure: () => workload(targetOf(reference)) },
      ours
        ? { name: 'slipstream', measure: () => workload(targetOf(ours)) }
        : { name: 'slipstream', skipped: 'not running' },
    ];
    const throughput = async (
      label: string,
      workload: (target: Target) => Promise<Record<string, number>>,
    ) => {
      const result = await alternateRounds(
        { rounds: options.rounds, label, warmup: true },
        ...sides(workload),
      );
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

    const latency = await alternateRounds(
      { rounds: options.rounds, label: 'request/reply 16 B', warmup: true },
      ...sides((t) => requestReply(t, COUNTS.requests, 16)),
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

    // Peak before the idle-connection test, which would otherwise dominate it.
    table.add({
      name: 'peak RSS over the workloads above',
      unit: 'MiB',
      better: 'lower',
      reference: peakRssBytes(reference.pid) / MiB,
      ours: ours ? peakRssBytes(ours.pid) / MiB : undefined,
    });
    const idle = await alternateRounds(
      { rounds: options.rounds, label: '1,000 idle connections' },
      ...sides((t) => idleConnections(t, COUNTS.idleConnections)),
    );
    table.add({
      name: 'RSS with 1,000 idle connections',
      unit: 'MiB',
      better: 'lower',
      reference: idle.reference.rssBytes / MiB,
      ours: idle.ours === undefined ? undefined : idle.ours.rssBytes / MiB,
    });
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
      'Client and servers share the 2 cores, and the official client is usually the bottleneck: msgs/s ratios near 1.0 say little; the server CPU rows show the servers’ own cost. Peak RSS is one reading (VmHWM) after the throughput and latency rounds. Issue #3 target for idle connections: under 100 MiB RSS (absolute, not a ratio).',
    );
  } finally {
    await Promise.all([reference.stop(), ours?.stop()]);
  }
  return table;
}

async function startOurServer(table: RatioTable): Promise<ServerProcess | undefined> {
  if (!existsSync(ourServerMain)) {
    table.note(
      `slipstream side skipped: @slipstream/server not built yet (${ourServerMain} missing; run \`pnpm build\` first)`,
    );
    return undefined;
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
    table.note(
      `slipstream side skipped: slipstream-server did not start: ${String(error).slice(0, 300)}`,
    );
    return undefined;
  }
}

function targetOf(server: ServerProcess): Target {
  return { connect: officialClient, url: server.url, serverPid: server.pid };
}
