/**
 * Per-core capacity: @slipstream/client, and @slipstream/jetstream for the JetStream
 * rows, drives nats-server 2.9.10 and slipstream-server, each pinned to one core with JetStream on
 * (`-js -sd <fresh dir>`), this process pinned to the other core, so that neither client cost nor
 * a borrowed core hides the server's own cost. Per workload: msgs/s, server CPU per message, peak
 * RSS; then each server's idle RSS and its time from spawn to first INFO.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { peakRssBytes, resetPeakRss, rssBytes } from '@slipstream/test-servers';
import { kvPutWorkload, pinnedFirstInfoMs, storesWithStreams } from './capacity-durable.js';
import { fdatasyncLatency } from './disk-sync-floor.js';
import { CapacityTable, type Cell } from './harness/capacity-table.js';
import { importIfBuilt } from './harness/optional.js';
import { CLIENT_CORE, SERVER_CORE, whilePinned } from './harness/pinning.js';
import { alternateRounds, type RoundsResult, type Sample } from './harness/rounds.js';
import { DEFAULT_JETSTREAM_MESSAGES, publishShape } from './jetstream.js';
import {
  type Client,
  DEFAULT_CONSUME_MESSAGES,
  loadOurClient,
  type Prepared,
  prepare,
  pullConsume,
} from './jetstream-consume.js';
import { jetstreamPublisher } from './jetstream-publishers.js';
import {
  type JetStreamServerKind,
  jetStreamCommand,
  startJetStreamServer,
} from './jetstream-servers.js';
import { publishRound } from './jetstream-workload.js';
import {
  type BenchConnection,
  COUNTS,
  describeCounts,
  publishOnly,
  pubSub,
  requestReply,
  type Target,
} from './nats-workloads.js';

const MiB = 1024 * 1024;
const KINDS = [
  'nats-server',
  'slipstream always',
  'slipstream lazy',
] as const satisfies JetStreamServerKind[];
/** The efficiency targets, as ratios ours / nats-server and budgets of ours. */
const TARGET = {
  rate: 1,
  coreCpu: 1.2,
  p99: 1.2,
  idleRssMiB: 40,
  firstInfoMs: 150,
  firstInfoRatio: 2.5,
  /** With 100 streams in the store. */
  firstInfoWithStreamsMs: 400,
  /** A publish awaited alone, synced: p50 ≤ this × the disk's write + fdatasync p50. */
  syncedPublishOverFloor: 1.5,
  /** Awaited KV puts/s: every put on disk before its ack, and with sync_interval set. */
  kvPutSynced: 0.6,
  kvPutLazy: 1,
  /** Peak RSS ≤ 2 × nats-server's + 30 MiB. */
  peakRss: (referenceMiB: number) => 2 * referenceMiB + 30,
};
/**
 * The msgs/s ratios the issue measured (the lower of its two pinned runs) where they fell short of
 * the target: the CI run fails only on a fall to a third of these, not of the target.
 */
const BASELINE = {
  publishOnly: 0.42,
  pubSub16: 0.66,
  pubSub1k: 0.66,
  fanOut: 0.91,
  queueGroup: 0.61,
  pullConsume: 0.52,
  asyncPublish: 0.99,
  /** Measured when the rows were added (2026-12-02, ours 510 vs 2.6k puts/s, 1.5k with sync_interval). */
  kvPutSynced: 0.2,
  kvPutLazy: 0.6,
};
/** KV puts awaited one at a time per round, at scale 1. */
const KV_PUTS = 2000;
/** Streams in the store of the second start row, at scale 1. */
const START_STREAMS = 100;
/** Time a freshly started server is left alone before its idle RSS is read. */
const IDLE_SETTLE_MS = 1000;

export interface CapacityOptions {
  readonly rounds: number;
  /** Stored messages pull-consumed and messages async-published per round. */
  readonly messages?: number;
  /** Fraction of the core workloads' usual message counts (COUNTS), for a short run. */
  readonly scale?: number;
}

/** What one workload measures on one server: `rate` (its main figure) and `cpu` (µs per message). */
type Workload = (server: Prepared) => Promise<Sample>;

export async function capacityBenchmark(options: CapacityOptions): Promise<CapacityTable> {
  const scale = options.scale ?? 1;
  const count = (n: number) => Math.max(1, Math.round(n * scale));
  const pullMessages = options.messages ?? DEFAULT_CONSUME_MESSAGES;
  const publishMessages = options.messages ?? DEFAULT_JETSTREAM_MESSAGES;
  const client = await loadOurClient();
  const core = await importIfBuilt<{ connect(o: { servers: string }): Promise<BenchConnection> }>(
    '@slipstream/client',
    ['connect'],
  );
  if ('skipped' in client) throw new Error(client.skipped);
  if ('skipped' in core) throw new Error(core.skipped);
  const target = (server: Prepared): Target => ({
    connect: (url) => core.module.connect({ servers: url }),
    url: server.url,
    serverPid: server.pid,
  });
  const coreWorkload =
    (run: (t: Target) => Promise<Sample>): Workload =>
    async (server) => {
      const sample = await run(target(server));
      return { ...sample, rate: sample.msgsPerSecond, cpu: sample.serverCpuSecondsPerMillion };
    };

  const table = new CapacityTable(
    `Capacity per core: slipstream-server vs nats-server 2.9.10, each pinned to core ${SERVER_CORE} with JetStream on, driven by @slipstream/client and @slipstream/jetstream on core ${CLIENT_CORE}`,
    'nats-server',
    'slipstream',
  );
  const loadBefore = loadavg()[0].toFixed(2);
  await whilePinned(CLIENT_CORE, async () => {
    const [nats, ours] = [
      await prepare(KINDS[0], pullMessages, SERVER_CORE),
      await prepare(KINDS[1], pullMessages, SERVER_CORE),
    ];
    try {
      /** Alternating rounds of `workload`, and each server's peak RSS over them (MiB). */
      const measure = async (label: string, workload: Workload, against = ours) => {
        for (const server of [nats, against]) resetPeakRss(server.pid);
        const result = await alternateRounds(
          { rounds: options.rounds, label, warmup: true },
          { name: 'nats-server', measure: () => workload(nats) },
          { name: 'slipstream', measure: () => workload(against) },
        );
        const reference = peakRssBytes(nats.pid) / MiB;
        const peakRss: Cell = {
          reference,
          ours: peakRssBytes(against.pid) / MiB,
          better: 'lower',
          oursLimit: TARGET.peakRss(reference),
        };
        return { result, peakRss };
      };
      const throughput = async (
        label: string,
        workload: Workload,
        cpuTarget: number | undefined,
        baseline: number,
      ) => {
        const { result, peakRss } = await measure(label, workload);
        table.add({
          workload: label,
          unit: 'msgs/s',
          main: { ...cell(result, 'rate', 'higher'), ratioTarget: TARGET.rate, baseline },
          cpu: { ...cell(result, 'cpu', 'lower'), ratioTarget: cpuTarget },
          peakRss,
        });
      };

      await throughput(
        'publish only, 16 B',
        coreWorkload((t) => publishOnly(t, count(COUNTS.publishOnly), 16)),
        TARGET.coreCpu,
        BASELINE.publishOnly,
      );
      await throughput(
        'pub → sub, 16 B',
        coreWorkload((t) => pubSub(t, { count: count(COUNTS.pubSub16), size: 16, subscribers: 1 })),
        TARGET.coreCpu,
        BASELINE.pubSub16,
      );
      await throughput(
        'pub → sub, 1 KiB',
        coreWorkload((t) =>
          pubSub(t, { count: count(COUNTS.pubSub1k), size: 1024, subscribers: 1 }),
        ),
        TARGET.coreCpu,
        BASELINE.pubSub1k,
      );
      await throughput(
        'fan-out to 4, 16 B (published)',
        coreWorkload((t) => pubSub(t, { count: count(COUNTS.fanOut), size: 16, subscribers: 4 })),
        TARGET.coreCpu,
        BASELINE.fanOut,
      );
      await throughput(
        'queue group of 4, 16 B',
        coreWorkload((t) =>
          pubSub(t, {
            count: count(COUNTS.queueGroup),
            size: 16,
            subscribers: 4,
            queue: 'workers',
          }),
        ),
        TARGET.coreCpu,
        BASELINE.queueGroup,
      );

      const requests = await measure(
        'request/reply, sequential',
        coreWorkload((t) => requestReply(t, count(COUNTS.requests), 16)),
      );
      const requestCpu = cell(requests.result, 'cpu', 'lower');
      table.add({
        workload: 'request/reply, sequential',
        unit: 'p50 µs',
        main: cell(requests.result, 'p50Micros', 'lower'),
        cpu: { ...requestCpu, ratioTarget: TARGET.coreCpu },
        peakRss: requests.peakRss,
      });
      table.add({
        workload: 'request/reply, sequential',
        unit: 'p99 µs',
        main: { ...cell(requests.result, 'p99Micros', 'lower'), ratioTarget: TARGET.p99 },
      });

      await throughput(
        'JetStream pull consume, explicit ack',
        pullWorkload(client, pullMessages),
        undefined,
        BASELINE.pullConsume,
      );
      const floor = fdatasyncLatency(500);
      const published = await measure(
        'JetStream async publish, file, ours syncing always',
        publishWorkload(client, publishMessages),
      );
      table.add({
        workload: 'JetStream async publish, file, ours syncing always',
        unit: 'msgs/s',
        main: {
          ...cell(published.result, 'rate', 'higher'),
          ratioTarget: TARGET.rate,
          baseline: BASELINE.asyncPublish,
        },
        cpu: cell(published.result, 'cpu', 'lower'),
        peakRss: published.peakRss,
      });
      table.add({
        workload: `JetStream publish awaited alone, file (disk: write + fdatasync p50 ${Math.round(floor.p50Micros)} µs)`,
        unit: 'p50 µs',
        main: {
          ...cell(published.result, 'syncP50', 'lower'),
          oursLimit: TARGET.syncedPublishOverFloor * floor.p50Micros,
        },
      });
      const kvPuts = await kvPutWorkload(client, count(KV_PUTS));
      const kvRow = async (
        label: string,
        against: Prepared,
        ratioTarget: number,
        baseline: number,
      ) => {
        const { result, peakRss } = await measure(label, kvPuts, against);
        table.add({
          workload: label,
          unit: 'puts/s',
          main: { ...cell(result, 'rate', 'higher'), ratioTarget, baseline },
          cpu: cell(result, 'cpu', 'lower'),
          peakRss,
        });
      };
      await kvRow(
        'KV put awaited, file, ours syncing always',
        ours,
        TARGET.kvPutSynced,
        BASELINE.kvPutSynced,
      );
      const lazy = await prepare(KINDS[2], 0, SERVER_CORE);
      try {
        await kvRow(
          'KV put awaited, file, ours with sync_interval 2m',
          lazy,
          TARGET.kvPutLazy,
          BASELINE.kvPutLazy,
        );
      } finally {
        await lazy.server.stop();
      }
    } finally {
      await Promise.all([nats.server.stop(), ours.server.stop()]);
    }

    const start = await alternateRounds(
      // No warm-up: the runs above have loaded both binaries' files into the page cache.
      { rounds: options.rounds, label: 'start and idle', warmup: false },
      { name: 'nats-server', measure: () => startAndIdle(KINDS[0]) },
      { name: 'slipstream', measure: () => startAndIdle(KINDS[1]) },
    );
    table.add({
      workload: 'idle, JetStream on, nothing stored',
      unit: 'RSS MiB',
      main: { ...cell(start, 'idleRssMiB', 'lower'), oursLimit: TARGET.idleRssMiB },
    });
    table.add({
      workload: 'spawn → first INFO, JetStream on',
      unit: 'ms',
      main: {
        ...cell(start, 'firstInfoMs', 'lower'),
        ratioTarget: TARGET.firstInfoRatio,
        oursLimit: TARGET.firstInfoMs,
      },
    });

    const streams = count(START_STREAMS);
    const withStreams = await storesWithStreams(client, streams);
    try {
      const restart = await alternateRounds(
        { rounds: options.rounds, label: `start with ${streams} streams`, warmup: false },
        { name: 'nats-server', measure: () => withStreams.firstInfoMs(KINDS[0]) },
        { name: 'slipstream', measure: () => withStreams.firstInfoMs(KINDS[1]) },
      );
      table.add({
        workload: `spawn → first INFO, JetStream on, ${streams} streams stored`,
        unit: 'ms',
        main: {
          ...cell(restart, 'firstInfoMs', 'lower'),
          oursLimit: TARGET.firstInfoWithStreamsMs,
        },
      });
    } finally {
      await withStreams.remove();
    }
  });

  table.note(
    `${describeCounts(['publishOnly', 'pubSub16', 'pubSub1k', 'fanOut', 'queueGroup', 'requests'])}${scale === 1 ? '' : ` Scaled by ${scale}.`} JetStream: a file stream of ${pullMessages.toLocaleString('en')} stored 128 B messages per server, filled before the rounds; per round a new durable explicit-ack consumer read to the end with @slipstream/jetstream's consume(), each message acked. Async publish: per round a fresh file stream, ${publishMessages.toLocaleString('en')} publishes of @slipstream/jetstream with up to ${publishShape(publishMessages).inFlight.toLocaleString('en')} PubAcks outstanding (after ${publishShape(publishMessages).syncMessages} awaited one by one, not in this row); ours confirms after its fdatasync (its default), nats-server syncs every 2 minutes.`,
  );
  table.note(
    `Every server runs under \`taskset -c ${SERVER_CORE}\` with \`-js -sd <fresh dir>\`, this process under \`taskset -a -cp ${CLIENT_CORE}\`. Server CPU: the run time of the server's threads (/proc/<pid>/task/*/schedstat, in ns) around each measured section, per message (per published message for fan-out). Peak RSS: VmHWM over the workload's rounds (reset before it through /proc/<pid>/clear_refs); target ours ≤ 2 × nats-server's + 30 MiB. Idle RSS: VmRSS ${IDLE_SETTLE_MS} ms after a fresh start; first INFO: from the spawn of \`taskset\` to the first INFO bytes on a TCP socket, a fresh store each time. Targets: msgs/s ≥ ${TARGET.rate}x, core server CPU ≤ ${TARGET.coreCpu}x, p99 ≤ ${TARGET.p99}x, idle RSS ≤ ${TARGET.idleRssMiB} MiB, first INFO ≤ ${TARGET.firstInfoMs} ms and ≤ ${TARGET.firstInfoRatio}x. Load average (1 min) ${loadBefore} before, ${loadavg()[0].toFixed(2)} after.`,
  );
  return table;
}

/** Both servers' medians of one figure. */
function cell(result: RoundsResult, key: string, better: Cell['better']): Cell {
  if (!result.ours) throw new Error(`no slipstream figures for ${key}`);
  return { reference: result.reference[key], ours: result.ours[key], better };
}

function pullWorkload(client: Client, messages: number): Workload {
  return async (server) => {
    const sample = await pullConsume(client, server, messages);
    return { rate: sample.pullMsgs, cpu: sample.pullCpuMicros };
  };
}

function publishWorkload(client: Client, messages: number): Workload {
  const publisher = jetstreamPublisher(client);
  return async (server) => {
    const sample = await publishRound(server.server, 'file', publisher, publishShape(messages));
    return {
      rate: sample.asyncMsgsPerSecond,
      cpu: sample.serverCpuMicrosPerMsg,
      syncP50: sample.syncP50Micros,
    };
  };
}

/** A fresh pinned server's time to its first INFO, then another fresh one's RSS once idle. */
async function startAndIdle(kind: JetStreamServerKind): Promise<Sample> {
  const root = await mkdtemp(join(tmpdir(), 'bench-start-'));
  let firstInfoMs: number;
  try {
    firstInfoMs = await pinnedFirstInfoMs(await jetStreamCommand(kind, root, join(root, 'store')));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const server = await startJetStreamServer(kind, { core: SERVER_CORE });
  if ('skipped' in server) throw new Error(`${kind}: ${server.skipped}`);
  try {
    await sleep(IDLE_SETTLE_MS);
    return { firstInfoMs, idleRssMiB: rssBytes(server.process.child.pid!) / MiB };
  } finally {
    await server.stop();
  }
}
