/**
 * Server benchmark (issue #3): the official client (@nats-io/transport-node) drives our server and
 * nats-server 2.9.10, both child processes of this one, in the same run; ratio ours / nats-server.
 */
import { peakRssBytes, type ServerProcess } from '@slipstream/test-servers';
import { alternateRounds, pick, type Sample } from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import {
  COUNTS,
  describeCounts,
  idleConnections,
  publishOnly,
  pubSub,
  requestReply,
  type Target,
} from './nats-workloads.js';
import {
  type Servers,
  serverRounds,
  startOurServer,
  startReference,
  targetOf,
  withServers,
} from './server-pair.js';

const MiB = 1024 * 1024;

export async function serverBenchmark(options: { rounds: number }): Promise<RatioTable> {
  const table = new RatioTable(
    'Server: slipstream-server vs nats-server 2.9.10, both driven by @nats-io/transport-node',
    'nats-server',
    'slipstream',
  );
  const rounds = (servers: Servers, label: string, workload: (target: Target) => Promise<Sample>) =>
    serverRounds(servers, { rounds: options.rounds, label }, workload);

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
