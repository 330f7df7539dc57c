/**
 * Ours beside the physical limits of a synced store: the latency of one write + fdatasync on
 * the stores' disk (the floor under a publish acknowledged only once on disk), and a bare
 * better-sqlite3 loop inserting the store's rows at the transaction sizes the workload allows.
 * The probes run right after each of our rounds on a file stream, so that ours and its limits
 * see the same disk at the same moment: this disk's sync latency moves 2-10x with other jobs.
 */
import { fdatasyncLatency } from './disk-sync-floor.js';
import type { RoundsResult, Sample } from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import { openSqliteLoop, type SqliteLoop, type Synchronous } from './sqlite-limit.js';

/** One write + fdatasync pairs timed per probe. */
const FDATASYNC_SAMPLES = 100;
/** Transaction sizes of the bare loop: a publish awaiting its PubAck; about one 16 KiB paced read of these PUBs; the whole window. */
export const BARE_BATCHES = [1, 100, 1000] as const;
const BARE_SECONDS = 0.15;

const bareKey = (batch: number) => `bare${batch}MsgsPerSecond`;

export class LimitProbes {
  private readonly loops: Record<Synchronous, SqliteLoop>;

  constructor(payloadSize: number) {
    this.loops = {
      FULL: openSqliteLoop('FULL', payloadSize),
      NORMAL: openSqliteLoop('NORMAL', payloadSize),
    };
    // Warm-up: JIT, and the first pages of each file.
    for (const loop of Object.values(this.loops)) loop.measure(1000, BARE_SECONDS);
  }

  /**
   * The figures beside one of our rounds: the fdatasync floor when it synced every commit
   * (FULL), and the bare loop in its sync mode when `bare`.
   */
  probe(synchronous: Synchronous, bare: boolean): Sample {
    const sample: Sample = {};
    if (synchronous === 'FULL') {
      const floor = fdatasyncLatency(FDATASYNC_SAMPLES);
      sample.fdatasyncP50Micros = floor.p50Micros;
      sample.fdatasyncP99Micros = floor.p99Micros;
    }
    if (bare) {
      for (const batch of BARE_BATCHES) {
        sample[bareKey(batch)] = this.loops[synchronous].measure(batch, BARE_SECONDS);
      }
    }
    return sample;
  }

  close(): void {
    for (const loop of Object.values(this.loops)) loop.close();
  }
}

/** Which run's results the table takes, by the name shown in its rows. */
export interface LimitSources {
  /** Runs whose `file, always` pair carries the fdatasync probe. */
  readonly floor: readonly { name: string; results: Record<string, RoundsResult> }[];
  /** The run whose file pairs carry the bare loop. */
  readonly bare: { name: string; results: Record<string, RoundsResult> };
}

export function limitTable(sources: LimitSources, rounds: number): RatioTable {
  const table = new RatioTable(
    'JetStream physical limit: slipstream-server beside this disk and a bare better-sqlite3 loop',
    'limit',
    'slipstream',
  );
  const medians = (results: Record<string, RoundsResult>, pair: string) => results[pair]?.ours;
  let floorP99: number | undefined;
  for (const { name, results } of sources.floor) {
    const ours = medians(results, 'file, always');
    floorP99 ??= ours?.fdatasyncP99Micros;
    table.add({
      name: `file, always: publish with ack one at a time p50 (${name}) vs one write + fdatasync p50`,
      unit: 'µs',
      better: 'lower',
      reference: ours?.fdatasyncP50Micros ?? Number.NaN,
      ours: ours?.syncP50Micros,
    });
  }
  const modes: [string, Synchronous][] = [
    ['file, always', 'FULL'],
    ['file, lazy', 'NORMAL'],
  ];
  for (const [pair, synchronous] of modes) {
    const ours = medians(sources.bare.results, pair);
    for (const batch of BARE_BATCHES) {
      const [publishing, key] =
        batch === 1
          ? ['publish with ack one at a time', 'syncMsgsPerSecond']
          : ['async publish', 'asyncMsgsPerSecond'];
      table.add({
        name: `${pair}: ${publishing} vs bare ${synchronous}, ${batch.toLocaleString('en')} ${batch === 1 ? 'row' : 'rows'} per commit`,
        unit: 'msgs/s',
        better: 'higher',
        reference: ours?.[bareKey(batch)] ?? Number.NaN,
        ours: ours?.[key],
      });
    }
  }
  table.note(
    `ours / ref is the share of the limit ours reaches. Both are medians over ${rounds} rounds: each probe runs right after one of our rounds on a file stream. fdatasync: ${FDATASYNC_SAMPLES} overwrites of one 4 KiB WAL-frame-sized block, each followed by fdatasync, on a file in os.tmpdir() (the stores' disk)${floorP99 === undefined ? '' : `; p99 ${floorP99.toFixed(0)} µs`}.`,
  );
  table.note(
    `Bare loop (${sources.bare.name} run): better-sqlite3 in this process, WAL mode, the store's table and subject index, 128 B payload and a CRC-32 per row, ${BARE_SECONDS} s per batch size. 1 row per commit: a publish awaiting its PubAck commits alone; 100: about one 16 KiB paced read of these PUB frames, the most one connection brings to our server's group commit of one event-loop turn; 1,000: the whole window in flight.`,
  );
  return table;
}
