import { slipstreamServerBin } from '@slipstream/test-servers';
import { runSoak, type SoakRun } from '../load/soak.js';
import type { Trend } from '../load/trend.js';
import type { Figure, Section, SectionContext } from '../section.js';

/**
 * The soak: our server for most of the section's budget (10 minutes in a 30-minute campaign of
 * shares 3 in 9), then nats-server 2.9.10 through the same traffic for a shorter run beside it.
 */
export const soak: Section = {
  name: 'soak',
  title: 'Soak',
  share: 3,
  async run(context: SectionContext) {
    const ours = await runSoak({ bin: slipstreamServerBin, durationMs: context.budgetMs * 0.65 });
    context.log(`slipstream ${describeSoak(ours)}`);
    const nats = await runSoak({ durationMs: context.budgetMs * 0.3 });
    context.log(`nats-server ${describeSoak(nats)}`);
    return { figures: soakFigures(ours, nats), details: DETAILS };
  },
};

export function describeSoak(run: SoakRun): string {
  return JSON.stringify({ ...run, samples: run.samples.length });
}

/** A rise across the steady part of the run larger than this is a clear upward trend. */
export const allowedGrowth = {
  rssMiB: (trend: Trend) => Math.max(16, trend.mean * 0.1),
  openFiles: () => 3,
  latencyMs: (trend: Trend) => Math.max(2, trend.mean),
};

const line = (trend: Trend, unit: string, digits: number) =>
  `${trend.slope >= 0 ? '+' : ''}${trend.slope.toFixed(digits)} ${unit}/min (mean ${trend.mean.toFixed(digits)}, rise ${trend.growth.toFixed(digits)})`;

export function soakFigures(ours: SoakRun, nats?: SoakRun): Figure[] {
  const runOf = (run: SoakRun) =>
    `${Math.round(run.durationMs / 1_000)} s, ${run.samples.length} samples`;
  const trials = `ours ${runOf(ours)}${nats ? `; nats-server ${runOf(nats)}` : ''}`;
  const ops = (run: SoakRun) =>
    Object.entries(run.operations)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ');
  return [
    {
      check: 'operations done (failed)',
      trials,
      ours: `${ops(ours)} (${ours.failures} failed)`,
      reference: nats && `${ops(nats)} (${nats.failures} failed)`,
      holds: ours.failures === 0,
    },
    {
      check: 'RSS trend (least squares after the warm-up)',
      trials,
      ours: line(ours.rss, 'MiB', 2),
      reference: nats && line(nats.rss, 'MiB', 2),
      holds: ours.rss.growth <= allowedGrowth.rssMiB(ours.rss),
    },
    {
      check: 'open sockets and files trend (/proc/<pid>/fd)',
      trials,
      ours: line(ours.openFiles, 'files', 2),
      reference: nats && line(nats.openFiles, 'files', 2),
      holds: ours.openFiles.growth <= allowedGrowth.openFiles(),
    },
    {
      check: 'request latency trend',
      trials,
      ours: line(ours.latency, 'ms', 3),
      reference: nats && line(nats.latency, 'ms', 3),
      holds: ours.latency.growth <= allowedGrowth.latencyMs(ours.latency),
    },
  ];
}

const DETAILS = [
  'One server process with JetStream takes, every 20 ms, 10 core messages (to a subscriber on',
  'another connection), a core request to a responder (its round trip is the latency sampled), a',
  'JetStream publish awaiting its ack (a file stream capped at 5,000 messages, so the store stays',
  'the same size) consumed and acked by a durable pull consumer, a KV put every 100 ms over 100',
  'keys, and a connection opened and closed every second. Every second the RSS (VmRSS), the open',
  'sockets and files (/proc/<pid>/fd, less the pipes and event fds of threads that come and go) and',
  'the median request latency are sampled. After a warm-up of',
  'the first quarter, a least-squares line is fitted through each series; its slope is reported',
  'per minute, with the rise it predicts across the steady part. A clear upward trend (a rise',
  'above 16 MiB or 10% of the mean RSS, 3 open files, or 2 ms or the mean latency, i.e. a doubling) breaks the',
  'promise. nats-server 2.9.10 runs the same traffic for a shorter time beside it.',
  '',
  'The 10-minute soak on demand (`--budget 15.5m --sections soak`) once broke the RSS promise',
  '(2026-12-02, 09:54: +3.72 MiB/min, a 28 MiB rise, mean 107 MiB) with no leak behind it: V8',
  'doubled a busy young generation up to its 32 MiB of semi-spaces and kept it. The installed',
  'command now holds the young generation once it has grown to 2 MiB semi-spaces, and, as Node',
  "puts V8's flags back to their defaults whenever it starts a worker thread (the store's idle",
  'checkpoint), sets the hold again once each worker is online (apps/server/src/',
  'young-generation.ts, tested by young-generation.e2e.test.ts). The same 10-minute soak with the',
  'young generation held at 1 MiB semi-spaces (11:45, 605 s, 579 samples, 0 failed operations):',
  '+0.76 MiB/min, a 5.7 MiB rise, mean 84.7 MiB (nats-server beside it: +0.91 MiB/min); held at',
  '2 MiB, which spares pull consume half its garbage collection (12:28, our server alone, 600 s):',
  '+0.88 MiB/min, a 6.6 MiB rise, mean 85.6 MiB, 0 failed operations. A run reading',
  '`process.memoryUsage()` every 10 s saw the old space grow 13 -> 20 MiB as V8 raised its next',
  "full collection's limit (heap in use 15-23 MiB throughout).",
].join('\n');
