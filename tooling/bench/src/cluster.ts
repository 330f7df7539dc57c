/**
 * Cluster scaling (`bench cluster`): N members (1, 2, 4 by default) of one server kind joined by
 * routes on 127.0.0.1, a load generator per member (a worker thread with @slipstream/client), and
 * the aggregate msgs/s of all of them per N with its ratio to N = 1, for each server kind. Publish
 * only: each generator publishes to its own member with nobody subscribed. Pub → sub: each
 * generator publishes on its own subject to its member, its subscriber sits on the next member, so
 * every message crosses a route once N > 1.
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { cpuMeter } from '@slipstream/test-servers';
import {
  CLUSTER_SERVER_KINDS,
  type ClusterMembers,
  type ClusterServerKind,
  startCluster,
} from './cluster-members.js';
import type {
  ClusterRound,
  ClusterRoundAnswer,
  ClusterWorkerData,
  ClusterWorkload,
} from './cluster-worker.js';
import { importIfBuilt } from './harness/optional.js';
import { median } from './harness/stats.js';
import { type BenchConnection, COUNTS } from './nats-workloads.js';

export interface ClusterOptions {
  readonly rounds: number;
  /** Messages each member's generator publishes per round (COUNTS' figure for the workload by default). */
  readonly messages?: number;
  readonly servers?: readonly ClusterServerKind[];
  readonly members?: readonly number[];
}

const SIZE = 16;
const WORKLOADS: readonly { workload: ClusterWorkload; label: string; count: number }[] = [
  { workload: 'publish', label: 'publish only, 16 B', count: COUNTS.publishOnly },
  { workload: 'pubsub', label: 'pub → sub across a route, 16 B', count: COUNTS.pubSub16 },
];

/** One N's medians: aggregate msgs/s and server CPU (all members) per message, by workload. */
type Row = { members: number; figures: Map<ClusterWorkload, { rate: number; cpuMicros: number }> };

export async function clusterBenchmark(options: ClusterOptions): Promise<{ render(): string }> {
  const client = await importIfBuilt<{ connect(o: { servers: string }): Promise<BenchConnection> }>(
    '@slipstream/client',
    ['connect'],
  );
  if ('skipped' in client) throw new Error(client.skipped);
  const connect = (url: string) => client.module.connect({ servers: url });
  const sizes = options.members ?? [1, 2, 4];
  const loadBefore = loadavg()[0].toFixed(2);
  const sections: string[] = [];
  for (const kind of options.servers ?? CLUSTER_SERVER_KINDS) {
    const rows: Row[] = [];
    let stoppedBy: string | undefined;
    for (const size of sizes) {
      let cluster: ClusterMembers;
      try {
        cluster = await startCluster(kind, size, connect);
      } catch (error) {
        stoppedBy = `${size} members: ${oneLine(error)}`;
        break;
      }
      try {
        rows.push(await measureCluster(cluster, options));
      } finally {
        await cluster.stop();
      }
    }
    sections.push(renderKind(kind, rows, stoppedBy));
  }
  const counts = WORKLOADS.map(
    (w) => `${w.label} ${(options.messages ?? w.count).toLocaleString('en')}`,
  ).join(', ');
  const notes = [
    `Per member and round: ${counts} messages, from a worker thread of this process driving that member with @slipstream/client (its pub → sub subscriber on the next member, on a subject of its own). msgs/s: all generators' messages over the wall time from the round's start to the last generator's end (connects included); medians of ${options.rounds} rounds after one unrecorded warm-up. Server CPU: the run time of all members' threads (/proc/<pid>/task/*/schedstat), per message.`,
    `N = 1 is a plain server without a cluster listener. Nothing is pinned: the curve means something only with at least 2 × N free cores (a member and its generator each); this machine has ${availableParallelism()}. Load average (1 min) ${loadBefore} before, ${loadavg()[0].toFixed(2)} after.`,
  ];
  return {
    render: () =>
      [
        '### Cluster scaling: aggregate msgs/s of N members joined by routes',
        '',
        ...sections,
        ...notes.map((n) => `- ${n}`),
      ].join('\n'),
  };
}

/** Every workload on one running cluster: a generator per member, warm-up, then the rounds. */
async function measureCluster(cluster: ClusterMembers, options: ClusterOptions): Promise<Row> {
  const size = cluster.members.length;
  const workers = await Promise.all(
    cluster.members.map((member, index) =>
      startWorker({
        index,
        url: member.url,
        subscriberUrl: cluster.members[(index + 1) % size].url,
      }),
    ),
  );
  try {
    const figures: Row['figures'] = new Map();
    for (const { workload, label, count } of WORKLOADS) {
      const round: ClusterRound = { workload, count: options.messages ?? count, size: SIZE };
      await runRound(workers, cluster, round);
      const samples = [];
      for (let r = 1; r <= options.rounds; r++) {
        samples.push(await runRound(workers, cluster, round));
      }
      process.stderr.write(
        `  ${cluster.kind}, ${size} members, ${label}: ${options.rounds} rounds done\n`,
      );
      figures.set(workload, {
        rate: median(samples.map((s) => s.rate)),
        cpuMicros: median(samples.map((s) => s.cpuMicros)),
      });
    }
    return { members: size, figures };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** Starts every generator at once and times them until the last one is done. */
async function runRound(workers: readonly Worker[], cluster: ClusterMembers, round: ClusterRound) {
  const pids = cluster.members.map((member) => member.child.pid!);
  const meters = pids.map(cpuMeter);
  const started = process.hrtime.bigint();
  await Promise.all(workers.map((worker) => ask(worker, round)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = meters.reduce((sum, meter) => sum + meter.seconds(), 0);
  const messages = round.count * workers.length;
  return { rate: messages / seconds, cpuMicros: (cpu / messages) * 1e6 };
}

async function startWorker(data: ClusterWorkerData): Promise<Worker> {
  const worker = new Worker(new URL('./cluster-worker.js', import.meta.url), { workerData: data });
  await answer(worker);
  return worker;
}

function ask(worker: Worker, round: ClusterRound): Promise<void> {
  const answered = answer(worker);
  worker.postMessage(round);
  return answered;
}

/** The worker's next answer: done, or its error thrown here. */
function answer(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      worker.off('message', onMessage);
      reject(error);
    };
    const onMessage = (message: ClusterRoundAnswer) => {
      worker.off('error', onError);
      if ('error' in message) reject(new Error(message.error));
      else resolve();
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
}

function renderKind(kind: ClusterServerKind, rows: readonly Row[], stoppedBy: string | undefined) {
  const base = rows[0];
  const head = `| members | ${WORKLOADS.map((w) => `${w.label} (msgs/s) | × N=${base?.members ?? 1} | server CPU µs/msg`).join(' | ')} |`;
  const align = `|---:|${WORKLOADS.map(() => '---:|---:|---:').join('|')}|`;
  const lines = rows.map((row) => {
    const cells = WORKLOADS.map(({ workload }) => {
      const figure = row.figures.get(workload)!;
      const ratio = base ? figure.rate / base.figures.get(workload)!.rate : Number.NaN;
      return `${Math.round(figure.rate).toLocaleString('en')} | ${ratio.toFixed(2)}x | ${figure.cpuMicros.toFixed(2)}`;
    });
    return `| ${row.members} | ${cells.join(' | ')} |`;
  });
  const stopped = stoppedBy === undefined ? [] : ['', `Not measured from ${stoppedBy}`];
  return [`#### ${kind}`, '', head, align, ...lines, ...stopped, ''].join('\n');
}

/** An error and the server output it quotes on one line, without stack frames, for the table. */
function oneLine(error: unknown): string {
  const lines = String(error)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at '));
  return lines.join(' | ').slice(0, 600);
}
