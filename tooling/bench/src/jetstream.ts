/**
 * JetStream benchmark (issue #9): publishing 128 B messages to file and memory streams of our
 * server (sync `always` and lazy) and of nats-server 2.9.10 in the same run, alternating rounds;
 * first driven by the official @nats-io/jetstream client, then by @slipstream/client with every
 * server pinned to one core; last, ours beside the disk's fdatasync latency and a bare SQLite
 * loop, the physical limits of a synced store.
 */
import { cpus, loadavg } from 'node:os';
import { fdatasyncLatency } from './disk-sync-floor.js';
import { importIfBuilt } from './harness/optional.js';
import { alternateRounds, pick, type RoundsResult, type Side } from './harness/rounds.js';
import { median } from './harness/stats.js';
import { RatioTable } from './harness/table.js';
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
import { openSqliteLoop, type Synchronous } from './sqlite-limit.js';

/** Windowed publishes per round unless `--messages` says otherwise; a default run takes ~3 min. */
export const DEFAULT_JETSTREAM_MESSAGES = 20_000;
const PAYLOAD = 128;
const IN_FLIGHT = 1000;
/** One write + fdatasync pairs timed for the floor. */
const FDATASYNC_SAMPLES = 300;
/** Transaction sizes of the bare loop: a synced publish; one 16 KiB paced read of these PUBs; the whole window. */
const SQLITE_BATCHES = [1, 100, IN_FLIGHT] as const;
const SQLITE_SECONDS = 0.2;

type Figure = 'syncP50' | 'asyncRate' | 'cpu' | 'disk';

/** One comparison: nats-server against one of our configurations on one storage type. */
interface Pair {
  readonly label: string;
  readonly ours: Exclude<JetStreamServerKind, 'nats-server'>;
  readonly storage: Storage;
  /** Issue #9's targets for this pair, ratio ours / nats-server. */
  readonly targets: Partial<Record<Figure, number>>;
}

/** A set of tables driven by one client: its pairs' results feed the physical-limit table. */
interface DriverRun {
  readonly table: RatioTable;
  /** By pair label; missing when that client could not run. */
  readonly results: Record<string, RoundsResult>;
}

export async function jetstreamBenchmark(options: {
  rounds: number;
  messages?: number;
}): Promise<{ render(): string }> {
  const messages = options.messages ?? DEFAULT_JETSTREAM_MESSAGES;
  const shape: RoundShape = {
    size: PAYLOAD,
    asyncMessages: messages,
    syncMessages: Math.max(20, Math.round(messages / 40)),
    inFlight: IN_FLIGHT,
  };
  const floor = fdatasyncLatency(FDATASYNC_SAMPLES);

  const official = await driverRun(
    'JetStream: slipstream-server vs nats-server 2.9.10, driven by @nats-io/jetstream',
    { name: '@nats-io/jetstream', publisher: officialPublisher },
    [
      {
        label: 'file, always',
        ours: 'slipstream always',
        storage: 'file',
        targets: { asyncRate: 1, cpu: 1.5, disk: 1.5 },
      },
      {
        label: 'file, lazy',
        ours: 'slipstream lazy',
        storage: 'file',
        targets: { syncP50: 1.2, asyncRate: 1, cpu: 1.5, disk: 1.5 },
      },
      {
        label: 'memory',
        ours: 'slipstream always',
        storage: 'memory',
        targets: { asyncRate: 1, cpu: 1.5 },
      },
    ],
    options.rounds,
    shape,
  );

  const core = cpus().length - 1;
  const client = await importIfBuilt<RawClient>('@slipstream/client', ['connect']);
  const pinnedTitle = `JetStream: slipstream-server vs nats-server 2.9.10, each pinned to core ${core}, driven by @slipstream/client`;
  const pinned: DriverRun =
    'module' in client
      ? await driverRun(
          pinnedTitle,
          { name: '@slipstream/client pinned', publisher: rawPublisher(client.module), core },
          [
            {
              label: 'file, always',
              ours: 'slipstream always',
              storage: 'file',
              targets: { asyncRate: 0.7 },
            },
            {
              label: 'file, lazy',
              ours: 'slipstream lazy',
              storage: 'file',
              targets: { asyncRate: 0.7 },
            },
            {
              label: 'memory',
              ours: 'slipstream always',
              storage: 'memory',
              targets: { asyncRate: 0.8 },
            },
          ],
          options.rounds,
          shape,
        )
      : skippedRun(pinnedTitle, client.skipped);

  const limit = limitTable(floor, official.results, pinned.results, options.rounds);
  return {
    render: () => [official.table, pinned.table, limit].map((t) => t.render()).join('\n\n'),
  };
}

/** How the servers are driven in one table: the client, and the core the servers are pinned to. */
interface Driver {
  readonly name: string;
  readonly publisher: PublisherFactory;
  readonly core?: number;
}

async function driverRun(
  title: string,
  driver: Driver,
  pairs: readonly Pair[],
  rounds: number,
  shape: RoundShape,
): Promise<DriverRun> {
  const core = driver.core;
  const table = new RatioTable(title, 'nats-server', 'slipstream');
  const loadBefore = loadavg()[0];
  const results: Record<string, RoundsResult> = {};
  const started = new Map<JetStreamServerKind, JetStreamServer | { skipped: string }>();
  const server = async (kind: JetStreamServerKind) => {
    if (!started.has(kind)) started.set(kind, await startJetStreamServer(kind, { core }));
    return started.get(kind)!;
  };
  try {
    const reference = (await server('nats-server')) as JetStreamServer;
    for (const pair of pairs) {
      const ours = await server(pair.ours);
      const measureOn = (s: JetStreamServer) => () =>
        publishRound(s, pair.storage, driver.publisher, shape);
      const oursSide: Side =
        'skipped' in ours
          ? { name: pair.ours, skipped: ours.skipped }
          : { name: pair.ours, measure: measureOn(ours) };
      const result = await alternateRounds(
        { rounds, label: `${driver.name}, ${pair.label}`, warmup: true },
        { name: 'nats-server', measure: measureOn(reference) },
        oursSide,
      );
      results[pair.label] = result;
      addPairRows(table, pair, result);
      if ('skipped' in ours) table.note(`${pair.label}: slipstream side skipped: ${ours.skipped}`);
    }
  } finally {
    await Promise.all([...started.values()].map((s) => ('stop' in s ? s.stop() : undefined)));
  }
  table.note(roundNote(shape, core));
  table.note(
    `Load average (1 min) ${loadBefore.toFixed(2)} before this table, ${loadavg()[0].toFixed(2)} after: other jobs share the ${cpus().length} cores.`,
  );
  return { table, results };
}

function addPairRows(table: RatioTable, pair: Pair, result: RoundsResult): void {
  const row = (
    name: string,
    unit: string,
    better: 'higher' | 'lower',
    key: string,
    target?: number,
  ) => table.add({ name: `${pair.label}: ${name}`, unit, better, target, ...pick(result, key) });
  row('publish with ack one at a time, p50', 'µs', 'lower', 'syncP50Micros', pair.targets.syncP50);
  row('publish with ack one at a time, p99', 'µs', 'lower', 'syncP99Micros');
  row(
    `async publish, ≤ ${IN_FLIGHT.toLocaleString('en')} in flight`,
    'msgs/s',
    'higher',
    'asyncMsgsPerSecond',
    pair.targets.asyncRate,
  );
  row('server CPU per stored msg', 'µs', 'lower', 'serverCpuMicrosPerMsg', pair.targets.cpu);
  if (pair.storage === 'file') {
    row('disk per stored msg', 'B', 'lower', 'diskBytesPerMsg', pair.targets.disk);
    const wal = result.ours?.walBytesPerMsg;
    if (wal !== undefined) {
      table.note(
        `${pair.label}: ${wal.toFixed(0)} B of ours' disk per message is the SQLite WAL file, which grows to about 4 MiB (the 1,000-page automatic checkpoint) and is then reused, not shrunk, while the stream is open: a fixed cost that a longer stream spreads thinner.`,
      );
    }
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
      ? 'Servers unpinned; the client runs in this process on the same 2 cores.'
      : `Every server runs under \`taskset -c ${core}\`; the client runs in this process, unpinned.`;
  return `Per round and side: a fresh stream (one subject), ${shape.size} B random payloads; 20 unrecorded publishes, ${shape.syncMessages.toLocaleString('en')} publishes each awaiting its PubAck (p50 / p99), then ${shape.asyncMessages.toLocaleString('en')} with up to ${shape.inFlight.toLocaleString('en')} PubAcks outstanding (msgs/s; server CPU = utime + stime from /proc/<pid>/stat over these, per message); disk = blocks allocated under the store dir (du) ${SETTLE_MS} ms after the last PubAck, over every message of the round. ${pinning} Ours in memory runs on the \`always\` server (sync does not apply).`;
}

/**
 * Ours beside what the hardware and SQLite allow: the synced publish's latency against one
 * write + fdatasync, and its rates against a bare better-sqlite3 loop at the same transaction
 * sizes. Ours are the pinned run's figures (the official client's when it could not run).
 */
function limitTable(
  floor: { p50Micros: number; p99Micros: number },
  official: Record<string, RoundsResult>,
  pinned: Record<string, RoundsResult>,
  rounds: number,
): RatioTable {
  const table = new RatioTable(
    'JetStream physical limit: slipstream-server beside this disk and a bare better-sqlite3 loop',
    'bare',
    'slipstream',
  );
  const bare = bareSqliteRates(rounds);
  const ours = (results: Record<string, RoundsResult>, pair: string, key: string) =>
    results[pair]?.ours?.[key];
  const fastest = Object.keys(pinned).length > 0 ? pinned : official;

  table.add({
    name: 'file, always: publish with ack one at a time p50 (@nats-io/jetstream) vs one write + fdatasync p50',
    unit: 'µs',
    better: 'lower',
    reference: floor.p50Micros,
    ours: ours(official, 'file, always', 'syncP50Micros'),
  });
  table.add({
    name: 'file, always: publish with ack one at a time p50 (@slipstream/client, pinned) vs one write + fdatasync p50',
    unit: 'µs',
    better: 'lower',
    reference: floor.p50Micros,
    ours: ours(pinned, 'file, always', 'syncP50Micros'),
  });
  const modes: [string, Synchronous][] = [
    ['file, always', 'FULL'],
    ['file, lazy', 'NORMAL'],
  ];
  for (const [pair, synchronous] of modes) {
    table.add({
      name: `${pair}: publish with ack one at a time vs bare ${synchronous}, 1 row per commit`,
      unit: 'msgs/s',
      better: 'higher',
      reference: bare[synchronous][1],
      ours: ours(fastest, pair, 'syncMsgsPerSecond'),
    });
    for (const batch of SQLITE_BATCHES.slice(1)) {
      table.add({
        name: `${pair}: async publish vs bare ${synchronous}, ${batch.toLocaleString('en')} rows per commit`,
        unit: 'msgs/s',
        better: 'higher',
        reference: bare[synchronous][batch],
        ours: ours(fastest, pair, 'asyncMsgsPerSecond'),
      });
    }
  }
  table.note(
    `ours / ref is the share of the limit ours reaches. fdatasync: ${FDATASYNC_SAMPLES} overwrites of one 4 KiB WAL-frame-sized block, each followed by fdatasync, on a file in os.tmpdir() (the stores' disk); p99 ${floor.p99Micros.toFixed(0)} µs.`,
  );
  table.note(
    `Bare loop: better-sqlite3 in this process, WAL mode, the store's table, subject index and per-commit sequence row, ${PAYLOAD} B payload and a CRC-32 per row; median of ${rounds} runs of ${SQLITE_SECONDS} s per batch size (1: a publish awaiting its PubAck is a commit of its own; 100: about one 16 KiB paced read of these PUB frames, the most one connection brings to a turn's group commit; ${IN_FLIGHT.toLocaleString('en')}: the whole window in flight). Ours: the ${Object.keys(pinned).length > 0 ? 'pinned @slipstream/client' : '@nats-io/jetstream'} run above.`,
  );
  return table;
}

/** msgs/s of the bare loop by sync mode and batch size, medians over `rounds` alternating runs. */
function bareSqliteRates(rounds: number): Record<Synchronous, Record<number, number>> {
  const rates = {} as Record<Synchronous, Record<number, number>>;
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    const loop = openSqliteLoop(synchronous, PAYLOAD);
    try {
      const samples = new Map<number, number[]>(SQLITE_BATCHES.map((b) => [b, []]));
      loop.measure(IN_FLIGHT, SQLITE_SECONDS); // warm-up: JIT, the first pages of the file
      for (let round = 0; round < rounds; round++) {
        for (const batch of SQLITE_BATCHES)
          samples.get(batch)!.push(loop.measure(batch, SQLITE_SECONDS));
      }
      rates[synchronous] = Object.fromEntries([...samples].map(([b, s]) => [b, median(s)]));
    } finally {
      loop.close();
    }
  }
  process.stderr.write('  bare better-sqlite3 loop: done\n');
  return rates;
}
