/**
 * JetStream benchmark (issue #9): publishing 128 B messages to file and memory streams of our
 * server (sync `always` and lazy) and of nats-server 2.9.10 in the same run, alternating rounds;
 * first driven by the official @nats-io/jetstream client, then by @slipstream/client with every
 * server pinned to one core; last, ours beside the physical limits of a synced store.
 */
import { cpus, loadavg } from 'node:os';
import { importIfBuilt } from './harness/optional.js';
import { alternateRounds, pick, type RoundsResult, type Side } from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import { LimitProbes, limitTable } from './jetstream-limit.js';
import {
  officialPublisher,
  type PublisherFactory,
  type RawClient,
  rawPublisher,
} from './jetstream-publishers.js';
import {
  type JetStreamServer,
  type JetStreamServerKind,
  startJetStreamServer,
} from './jetstream-servers.js';
import { publishRound, type RoundShape, SETTLE_MS, type Storage } from './jetstream-workload.js';

/** Windowed publishes per round unless `--messages` says otherwise; a default run takes about 3 minutes on a busy 2-core machine. */
export const DEFAULT_JETSTREAM_MESSAGES = 10_000;
const PAYLOAD = 128;
const IN_FLIGHT = 1000;

type Figure = 'syncP50' | 'asyncRate' | 'cpu' | 'disk';
type Targets = Partial<Record<Figure, number>>;

/** One comparison: nats-server against one of our configurations on one storage type. */
interface Pair {
  readonly label: string;
  readonly ours: Exclude<JetStreamServerKind, 'nats-server'>;
  readonly storage: Storage;
}

const PAIRS: readonly Pair[] = [
  { label: 'file, always', ours: 'slipstream always', storage: 'file' },
  { label: 'file, lazy', ours: 'slipstream lazy', storage: 'file' },
  // Memory streams do not sync: the default server serves them.
  { label: 'memory', ours: 'slipstream always', storage: 'memory' },
];

/** How one table drives the servers. */
interface Driver {
  readonly name: string;
  readonly title: string;
  readonly publisher: PublisherFactory;
  /** The core every server is pinned to; unpinned when undefined. */
  readonly core?: number;
  /** Issue #9's targets by pair label, as ratios ours / nats-server. */
  readonly targets: Record<string, Targets>;
  /** Whether the bare SQLite loop runs beside this driver's rounds (the fdatasync floor always does). */
  readonly bare: boolean;
}

/** A table and its medians by pair label (empty when the driver could not run). */
interface DriverRun {
  readonly table: RatioTable;
  readonly results: Record<string, RoundsResult>;
}

/** A round of `messages` windowed 128 B publishes, and a fortieth of that (at least 20) awaited one by one. */
export function publishShape(messages: number): RoundShape {
  return {
    size: PAYLOAD,
    asyncMessages: messages,
    syncMessages: Math.max(20, Math.round(messages / 40)),
    inFlight: IN_FLIGHT,
  };
}

export async function jetstreamBenchmark(options: {
  rounds: number;
  messages?: number;
}): Promise<{ render(): string }> {
  const messages = options.messages ?? DEFAULT_JETSTREAM_MESSAGES;
  const shape = publishShape(messages);
  const core = cpus().length - 1;
  const client = await importIfBuilt<RawClient>('@slipstream/client', ['connect']);
  const official: Driver = {
    name: '@nats-io/jetstream',
    title: 'JetStream: slipstream-server vs nats-server 2.9.10, driven by @nats-io/jetstream',
    publisher: officialPublisher,
    targets: {
      'file, always': { asyncRate: 1, cpu: 1.5, disk: 1.5 },
      'file, lazy': { syncP50: 1.2, asyncRate: 1, cpu: 1.5, disk: 1.5 },
      memory: { asyncRate: 1, cpu: 1.5 },
    },
    // The pinned run's rates show the server's own capacity; without it, these are all there is.
    bare: !('module' in client),
  };
  const pinnedTitle = `JetStream: slipstream-server vs nats-server 2.9.10, each pinned to core ${core}, driven by @slipstream/client`;

  const probes = new LimitProbes(PAYLOAD);
  try {
    const officialRun = await driverRun(official, probes, options.rounds, shape);
    const pinned: Driver | undefined =
      'module' in client
        ? {
            name: '@slipstream/client, pinned',
            title: pinnedTitle,
            publisher: rawPublisher(client.module),
            core,
            targets: {
              'file, always': { asyncRate: 0.7 },
              'file, lazy': { asyncRate: 0.7 },
              memory: { asyncRate: 0.8 },
            },
            bare: true,
          }
        : undefined;
    const pinnedRun = pinned
      ? await driverRun(pinned, probes, options.rounds, shape)
      : skippedRun(pinnedTitle, 'skipped' in client ? client.skipped : '');
    const runs = [
      { name: official.name, results: officialRun.results },
      ...(pinned ? [{ name: pinned.name, results: pinnedRun.results }] : []),
    ];
    const limit = limitTable({ floor: runs, bare: runs[runs.length - 1] }, options.rounds);
    return {
      render: () => [officialRun.table, pinnedRun.table, limit].map((t) => t.render()).join('\n\n'),
    };
  } finally {
    probes.close();
  }
}

async function driverRun(
  driver: Driver,
  probes: LimitProbes,
  rounds: number,
  shape: RoundShape,
): Promise<DriverRun> {
  const table = new RatioTable(driver.title, 'nats-server', 'slipstream');
  const loadBefore = loadavg()[0];
  const results: Record<string, RoundsResult> = {};
  const started = new Map<JetStreamServerKind, JetStreamServer | { skipped: string }>();
  const server = async (kind: JetStreamServerKind) => {
    if (!started.has(kind))
      started.set(kind, await startJetStreamServer(kind, { core: driver.core }));
    return started.get(kind)!;
  };
  try {
    const reference = (await server('nats-server')) as JetStreamServer;
    for (const pair of PAIRS) {
      const ours = await server(pair.ours);
      const round = (s: JetStreamServer) => publishRound(s, pair.storage, driver.publisher, shape);
      const synchronous = pair.ours === 'slipstream always' ? 'FULL' : 'NORMAL';
      const oursSide: Side =
        'skipped' in ours
          ? { name: pair.ours, skipped: ours.skipped }
          : {
              name: pair.ours,
              measure: async () => {
                const sample = await round(ours);
                if (pair.storage !== 'file') return sample;
                return { ...sample, ...probes.probe(synchronous, driver.bare) };
              },
            };
      const result = await alternateRounds(
        { rounds, label: `${driver.name}, ${pair.label}`, warmup: true },
        { name: 'nats-server', measure: () => round(reference) },
        oursSide,
      );
      results[pair.label] = result;
      addPairRows(table, pair, driver.targets[pair.label] ?? {}, result);
      if ('skipped' in ours) table.note(`${pair.label}: slipstream side skipped: ${ours.skipped}`);
    }
  } finally {
    await Promise.all([...started.values()].map((s) => ('stop' in s ? s.stop() : undefined)));
  }
  table.note(roundNote(shape, driver.core));
  table.note(
    `Load average (1 min) ${loadBefore.toFixed(2)} before this table, ${loadavg()[0].toFixed(2)} after: other jobs share the ${cpus().length} cores.`,
  );
  return { table, results };
}

function addPairRows(table: RatioTable, pair: Pair, targets: Targets, result: RoundsResult): void {
  const row = (
    name: string,
    unit: string,
    better: 'higher' | 'lower',
    key: string,
    target?: number,
  ) => table.add({ name: `${pair.label}: ${name}`, unit, better, target, ...pick(result, key) });
  row('publish with ack one at a time, p50', 'µs', 'lower', 'syncP50Micros', targets.syncP50);
  row('publish with ack one at a time, p99', 'µs', 'lower', 'syncP99Micros');
  row(
    `async publish, ≤ ${IN_FLIGHT.toLocaleString('en')} in flight`,
    'msgs/s',
    'higher',
    'asyncMsgsPerSecond',
    targets.asyncRate,
  );
  row('server CPU per stored msg', 'µs', 'lower', 'serverCpuMicrosPerMsg', targets.cpu);
  // When the client's CPU per message differs between the sides, so does the rate it can drive.
  row('client CPU per acked msg', 'µs', 'lower', 'clientCpuMicrosPerMsg');
  if (pair.storage !== 'file') return;
  row('disk per stored msg', 'B', 'lower', 'diskBytesPerMsg', targets.disk);
  const wal = result.ours?.walBytesPerMsg;
  if (wal !== undefined) {
    table.note(
      `${pair.label}: ${wal.toFixed(0)} B of ours' disk per message is the SQLite WAL file, which grows to about 4 MiB (the 1,000-page automatic checkpoint) while the stream is written and is truncated once the stream has been idle for 100 ms.`,
    );
  }
}

function skippedRun(title: string, why: string): DriverRun {
  const table = new RatioTable(title, 'nats-server', 'slipstream');
  table.note(`skipped: ${why}`);
  return { table, results: {} };
}

function roundNote(shape: RoundShape, core: number | undefined): string {
  const pinning =
    core === undefined
      ? 'Servers unpinned; the client runs in this process on the same cores.'
      : `Every server runs under \`taskset -c ${core}\`; the client runs in this process, unpinned.`;
  const n = (count: number) => count.toLocaleString('en');
  return `Per round and side: a fresh stream (one subject), ${shape.size} B random payloads; 20 unrecorded publishes, ${n(shape.syncMessages)} publishes each awaiting its PubAck (p50 / p99), then ${n(shape.asyncMessages)} with up to ${n(shape.inFlight)} PubAcks outstanding (msgs/s; server CPU = the run time of its threads (/proc/<pid>/task/*/schedstat) over these, per message); disk = blocks allocated under the store dir (du) ${SETTLE_MS} ms after the last PubAck, over every message of the round. ${pinning} Ours in memory runs on the \`always\` server (sync does not apply).`;
}
