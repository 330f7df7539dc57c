/**
 * Client benchmark (issue #4): our @slipstream/client against the official @nats-io/transport-node,
 * both talking to the same nats-server 2.9.10 in the same run; ratio ours / official.
 */
import { connect } from '@nats-io/transport-node';
import { importIfBuilt, sideOf } from './harness/optional.js';
import {
  addThroughputRows,
  alternateRounds,
  pick,
  type Sample,
  type Side,
} from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import {
  type BenchConnection,
  COUNTS,
  type Connector,
  describeCounts,
  publishOnly,
  pubSub,
  requestReply,
  subscriptionMemory,
  type Target,
} from './nats-workloads.js';
import { startReference } from './server-pair.js';

/** The part of @slipstream/client's API this benchmark drives: nats.js v3 names. */
interface ClientUnderTest {
  connect(options: { servers: string }): Promise<BenchConnection>;
}

const officialClient: Connector = (url) => connect({ servers: url }) as Promise<BenchConnection>;
const MiB = 1024 * 1024;

export async function clientBenchmark(options: { rounds: number }): Promise<RatioTable> {
  const table = new RatioTable(
    'Client: @slipstream/client vs @nats-io/transport-node 3.x, same nats-server 2.9.10',
    '@nats-io',
    'slipstream',
  );
  const loaded = await importIfBuilt<ClientUnderTest>('@slipstream/client', ['connect']);
  if ('skipped' in loaded) table.note(`slipstream side skipped: ${loaded.skipped}`);
  const server = await startReference();
  try {
    const sides = (workload: (target: Target) => Promise<Sample>): [Side, Side] => [
      {
        name: '@nats-io',
        measure: () =>
          workload({ connect: officialClient, url: server.url, serverPid: server.child.pid! }),
      },
      sideOf('slipstream', loaded, (client) =>
        workload({
          connect: (url) => client.connect({ servers: url }),
          url: server.url,
          serverPid: server.child.pid!,
        }),
      ),
    ];
    const throughput = async (
      label: string,
      target: number,
      workload: (t: Target) => Promise<Sample>,
    ) => {
      const result = await alternateRounds(
        { rounds: options.rounds, label, warmup: true },
        ...sides(workload),
      );
      addThroughputRows(table, label, target, result, 'serverCpuSecondsPerMillion');
    };

    await throughput('publish-only 16 B', 1.5, (t) => publishOnly(t, COUNTS.publishOnly, 16));
    await throughput('pub→sub 16 B', 1.3, (t) =>
      pubSub(t, { count: COUNTS.pubSub16, size: 16, subscribers: 1 }),
    );
    await throughput('pub→sub 1 KiB', 1.3, (t) =>
      pubSub(t, { count: COUNTS.pubSub1k, size: 1024, subscribers: 1 }),
    );

    const latency = await alternateRounds(
      { rounds: options.rounds, label: 'request/reply 16 B', warmup: true },
      ...sides((t) => requestReply(t, COUNTS.requests, 16)),
    );
    table.add({
      name: 'request/reply p50',
      unit: 'µs',
      better: 'lower',
      target: 1.0,
      ...pick(latency, 'p50Micros'),
    });
    table.add({
      name: 'request/reply p99',
      unit: 'µs',
      better: 'lower',
      target: 1.0,
      ...pick(latency, 'p99Micros'),
    });

    const memory = await alternateRounds(
      { rounds: options.rounds, label: '10,000 subscriptions' },
      ...sides((t) => subscriptionMemory(t, COUNTS.subscriptions)),
    );
    table.add({
      name: 'memory for 10,000 subscriptions',
      unit: 'MiB',
      better: 'lower',
      reference: memory.reference.subscriptionsBytes / MiB,
      ours: memory.ours === undefined ? undefined : memory.ours.subscriptionsBytes / MiB,
      roundRatios: memory.roundRatios.subscriptionsBytes,
    });
    table.note(
      'Publisher and subscribers of both clients run in this process, so client CPU per message covers both ends (process.cpuUsage around each measured section).',
    );
    table.note(
      'nats-server CPU per message is the run time of its threads (/proc/<pid>/task/*/schedstat) around the same sections. At 1 KiB it is about 1.3–1.5 µs per message with either client, so near 700k msgs/s nats-server alone takes one of the two cores: past that the server, not our client, sets the pub→sub rate.',
    );
    table.note(
      describeCounts(['publishOnly', 'pubSub16', 'pubSub1k', 'requests', 'subscriptions']),
    );
    table.note(
      'Subscription memory: heapUsed + external once forced GCs stop freeing anything, before and after 10,000 subscriptions with callbacks on distinct subjects of one connection.',
    );
  } finally {
    await server.stop();
  }
  return table;
}
