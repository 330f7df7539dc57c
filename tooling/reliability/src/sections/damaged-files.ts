import { join } from 'node:path';
import { slipstreamServerBin } from '@slipstream/test-servers';
import { type DamageTarget, runTrial, type TrialResult } from '../damage/trial.js';
import type { Figure, Section, SectionContext } from '../section.js';

/** The promise needs at least this many trials. */
const PROMISED_TRIALS = 50;

export const damageTargets = {
  ours: {
    name: 'slipstream',
    bin: slipstreamServerBin,
    // The account's name is file-name encoded: $G is %24G.
    streamDir: (dir, stream) => join(dir, 'js', 'jetstream', '%24G', 'streams', stream),
  },
  nats: {
    name: 'nats-server 2.9.10',
    streamDir: (dir, stream) => join(dir, 'js', 'jetstream', '$G', 'streams', stream),
  },
} satisfies Record<string, DamageTarget>;

/**
 * Damaged files: seeded trials of one flipped bit or one truncation in one file of a stopped
 * server's stream directory, ours first (at least PROMISED_TRIALS, more while its share of the
 * budget lasts), then nats-server 2.9.10 through the same seeds for its figures.
 */
export const damagedFiles: Section = {
  name: 'damaged-files',
  title: 'Damaged files stay available',
  share: 2,
  async run(context: SectionContext) {
    const firstSeed = Number(process.env.DAMAGE_SEED ?? Date.now() % 1_000_000_000);
    const deadline = Date.now() + context.budgetMs * 0.6;
    const ours: TrialResult[] = [];
    while (ours.length < PROMISED_TRIALS || Date.now() < deadline) {
      const result = await runTrial(damageTargets.ours, firstSeed + ours.length);
      ours.push(result);
      context.log(describeTrial(damageTargets.ours, result));
    }
    const natsDeadline = Date.now() + context.budgetMs * 0.4;
    const nats: TrialResult[] = [];
    while (nats.length < ours.length && Date.now() < natsDeadline) {
      const result = await runTrial(damageTargets.nats, firstSeed + nats.length);
      nats.push(result);
      context.log(describeTrial(damageTargets.nats, result));
    }
    return { figures: figures(ours, nats), details: details(firstSeed, ours, nats) };
  },
};

export function describeTrial(target: DamageTarget, r: TrialResult): string {
  return (
    `${target.name} seed ${r.seed} (${r.stop}) ${r.file}: ${r.damage} -> ${r.outcome}, ` +
    `${r.intact} intact, ${r.reported} reported, ${r.corrupt} corrupt, ${r.unaccounted} unaccounted`
  );
}

const sum = (results: TrialResult[], pick: (r: TrialResult) => number) =>
  results.reduce((total, r) => total + pick(r), 0);
const trialsWhere = (results: TrialResult[], test: (r: TrialResult) => boolean) =>
  results.filter(test).length;

export function figures(ours: TrialResult[], nats: TrialResult[]): Figure[] {
  const both = (
    pick: (r: TrialResult[]) => number,
    holds?: boolean,
  ): Pick<Figure, 'ours' | 'reference' | 'holds'> => ({
    ours: `${pick(ours)}`,
    reference: nats.length > 0 ? `${pick(nats)}` : undefined,
    ...(holds === undefined ? {} : { holds }),
  });
  const trials = `${ours.length} trials (nats-server ${nats.length})`;
  const zero = (pick: (r: TrialResult[]) => number) => both(pick, pick(ours) === 0);
  return [
    {
      check: `damage trials (the promise needs ≥ ${PROMISED_TRIALS})`,
      trials: 'one bit flipped or one truncation in one file of a stopped stream',
      ...both((r) => r.length, ours.length >= PROMISED_TRIALS),
    },
    {
      check: 'acknowledged messages served changed',
      trials,
      ...zero((r) => sum(r, (t) => t.corrupt)),
    },
    {
      check: 'streams reported missing (10059) or server not starting',
      trials,
      ...zero((r) =>
        trialsWhere(
          r,
          (t) => t.outcome === 'missing' || t.outcome === 'no start' || t.outcome === 'error',
        ),
      ),
    },
    {
      check: 'acknowledged messages neither served nor reported lost',
      trials,
      ...zero((r) => sum(r, (t) => t.unaccounted)),
    },
    {
      check: 'sequences handed out again after the restart',
      trials,
      ...zero((r) => trialsWhere(r, (t) => t.reused)),
    },
    {
      check: 'served streams refusing a publish after the restart',
      trials,
      ...zero((r) => trialsWhere(r, (t) => t.unwritable)),
    },
    {
      check: 'damage /healthz did not report',
      trials,
      ...zero((r) => trialsWhere(r, (t) => t.unhealthyHidden)),
    },
    {
      check: 'acknowledged messages served intact / reported lost',
      trials,
      ...both((r) => sum(r, (t) => t.intact)),
      ours: `${sum(ours, (t) => t.intact)} / ${sum(ours, (t) => t.reported)}`,
      reference:
        nats.length > 0
          ? `${sum(nats, (t) => t.intact)} / ${sum(nats, (t) => t.reported)}`
          : undefined,
    },
    {
      check: 'trials whose stream came back offline (10118)',
      trials,
      ...both((r) => trialsWhere(r, (t) => t.outcome === 'offline')),
    },
    {
      check: 'trials whose damaged files were moved aside (recovery at start)',
      trials,
      ...both((r) => trialsWhere(r, (t) => t.movedAside)),
    },
    {
      check: 'trials whose durable consumer came back',
      trials,
      ...both((r) => trialsWhere(r, (t) => t.consumerBack)),
    },
  ];
}

function details(firstSeed: number, ours: TrialResult[], nats: TrialResult[]): string {
  const byFile = new Map<string, TrialResult[]>();
  for (const r of ours) {
    // One row per kind of file: a numbered block or consumer directory counts as its kind.
    const kind = r.file.replace(/\d+/g, 'N');
    byFile.set(kind, [...(byFile.get(kind) ?? []), r]);
  }
  const rows = [...byFile].map(
    ([file, results]) =>
      `| ${file} | ${results.length} | ${trialsWhere(results, (t) => t.outcome === 'served')} | ` +
      `${trialsWhere(results, (t) => t.outcome === 'offline')} | ${sum(results, (t) => t.reported)} | ` +
      `${sum(results, (t) => t.corrupt + t.unaccounted)} |`,
  );
  return [
    'Each trial starts a fresh server, creates a file stream and stores 150 acknowledged messages of',
    '20 to 620 bytes with a durable consumer that confirmed 40 acks, stops the server (half the trials',
    'cleanly, half killed with SIGKILL at once, so that write-ahead files are still there), damages',
    'one file of the stream directory chosen at random (one flipped bit at a random offset, or a',
    'truncation at a random length), and starts the server again on it. Then every acknowledged',
    'message is asked for by STREAM.MSG.GET: it must come back exactly as stored, or be reported,',
    "named in the stream info's `state.lost` or the whole stream answered offline (10118); a publish",
    'must get a sequence above every acknowledged one, and /healthz must be 503 while anything is lost.',
    'nats-server 2.9.10 goes through the same seeds (its own files: message blocks, index, meta and',
    'consumer state).',
    '',
    `Seeds ${firstSeed} to ${firstSeed + ours.length - 1}: \`DAMAGE_SEED=${firstSeed}\` replays the run's`,
    'choices of file, damage and offset (the files themselves vary a little from run to run, as',
    'timestamps and checksums change the sizes of rows).',
    '',
    'Our trials by damaged file:',
    '',
    '| file | trials | served | offline | messages reported lost | changed or unaccounted |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    "**Recovery at start.** Our server reads every message of a stream's `messages.db` (and its WAL,",
    'frame by frame) before opening it; on damage it rebuilds the file from what reads intact, moves',
    'the damaged files into `damaged-<time>/` and names what it could not read in `state.lost`. A WAL',
    'with a damaged frame or cut short counts up to its damage, as SQLite reads it. The store keeps',
    'its last sequence outside the database too, in `messages.last` (written once a commit is synced,',
    'before its PubAcks), so that sequences past what the damaged file still holds are named lost and',
    'never handed out again. A stream is offline only when nothing of it reads: its database cut',
    'inside its first page or its header damaged, or both its meta files damaged.',
    '',
    '**Defects found and fixed.** A `messages.db` cut inside its last page left its newest messages',
    'neither served nor named lost and handed their sequences out again: SQLite reads the cut page as',
    'zeros past the cut and still finds every key before them, so nothing told how far the sequences',
    'went (seed 193445331 of an earlier run: 1 message unaccounted, 1 sequence reused); now',
    '`messages.last` tells. A WAL cut short inside a frame left the stream offline (10118) until an',
    'operator moved the WAL aside; now the stream is rebuilt from the database and the frames before',
    'the cut. Both are in `packages/server/test/jetstream-damaged-files.test.ts`.',
    '',
    nats.length < ours.length
      ? `nats-server ran ${nats.length} of the ${ours.length} seeds within the budget.`
      : '',
  ].join('\n');
}
