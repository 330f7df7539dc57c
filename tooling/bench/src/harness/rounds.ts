import { median } from './stats.js';
import type { RatioTable } from './table.js';

/** One measurement: named figures (msgs/s, CPU seconds, bytes...) taken in a single run of a workload. */
export type Sample = Record<string, number>;

/** One side of a comparison: either something to measure, or the reason it cannot run yet. */
export type Side =
  | { readonly name: string; readonly measure: () => Promise<Sample> }
  | { readonly name: string; readonly skipped: string };

export interface RoundsResult {
  /** Median of each figure over the rounds. */
  readonly reference: Sample;
  /** Undefined when our side was skipped. */
  readonly ours: Sample | undefined;
  /** Every round's ours / reference for each figure, to show how far single rounds scatter. */
  readonly roundRatios: Record<string, number[]>;
}

export interface RoundsOptions {
  readonly rounds: number;
  /** Shown in progress lines on stderr. */
  readonly label: string;
  /** Runs each side once, unrecorded, before the rounds (JIT warm-up, connection pools). */
  readonly warmup?: boolean;
}

/**
 * Measures reference and ours alternately (A B A B ...) so that load changes on a shared machine
 * hit both sides alike, and returns the median of every figure. Medians, not means: one stalled
 * round must not move the result.
 */
export async function alternateRounds(
  options: RoundsOptions,
  reference: Side,
  ours: Side,
): Promise<RoundsResult> {
  if (!('measure' in reference))
    throw new Error(`reference ${reference.name}: ${reference.skipped}`);
  const sides = 'measure' in ours ? [reference, ours] : [reference];
  if (options.warmup) for (const side of sides) await side.measure();
  const samples: Sample[][] = sides.map(() => []);
  for (let round = 1; round <= options.rounds; round++) {
    if (process.stderr.isTTY)
      process.stderr.write(`  ${options.label}: round ${round}/${options.rounds}\r`);
    for (let i = 0; i < sides.length; i++) samples[i].push(await sides[i].measure());
  }
  process.stderr.write(`  ${options.label}: ${options.rounds} rounds done${' '.repeat(10)}\n`);
  const [referenceMedian, oursMedian] = samples.map(medianOfEach);
  return { reference: referenceMedian, ours: oursMedian, roundRatios: ratiosByRound(samples) };
}

function ratiosByRound([reference, ours]: Sample[][]): Record<string, number[]> {
  const ratios: Record<string, number[]> = {};
  if (!ours) return ratios;
  for (const key of Object.keys(reference[0] ?? {})) {
    ratios[key] = reference.map((r, round) => ours[round][key] / r[key]);
  }
  return ratios;
}

function medianOfEach(samples: Sample[]): Sample {
  const result: Sample = {};
  for (const key of Object.keys(samples[0] ?? {})) {
    result[key] = median(samples.map((s) => s[key]));
  }
  return result;
}

/** One figure's medians from both sides and its per-round ratios, shaped for RatioTable.add. */
export function pick(
  result: RoundsResult,
  key: string,
): { reference: number; ours: number | undefined; roundRatios: number[] | undefined } {
  return {
    reference: result.reference[key],
    ours: result.ours?.[key],
    roundRatios: result.roundRatios[key],
  };
}

/**
 * The three rows of a client throughput workload: messages a second (against `target`), the
 * client's CPU per message and the server's, the last read from `serverCpuKey` of the samples.
 */
export function addThroughputRows(
  table: RatioTable,
  label: string,
  target: number,
  result: RoundsResult,
  serverCpuKey: string,
): void {
  table.add({
    name: label,
    unit: 'msgs/s',
    better: 'higher',
    target,
    ...pick(result, 'msgsPerSecond'),
  });
  table.add({
    name: `client CPU, ${label}`,
    unit: 'µs per msg',
    better: 'lower',
    ...pick(result, 'clientCpuMicrosPerMsg'),
  });
  table.add({
    name: `nats-server CPU, ${label}`,
    unit: 'µs per msg',
    better: 'lower',
    ...pick(result, serverCpuKey),
  });
}
