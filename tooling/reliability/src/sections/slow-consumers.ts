import { slipstreamServerBin } from '@slipstream/test-servers';
import {
  runSlowConsumer,
  SLOW_CONSUMER_CONFIG,
  type SlowConsumerRun,
} from '../load/slow-consumer.js';
import type { Figure, Section, SectionContext } from '../section.js';

/** The issue's scenario: one stalled subscriber among 100 fast ones. */
export const FULL_FAST_SUBSCRIBERS = 100;
export const OFFERED_RATE = 500;

export interface SlowConsumerComparison {
  readonly fastSubscribers: number;
  readonly measureMs: number;
  readonly without: SlowConsumerRun;
  readonly with: SlowConsumerRun;
}

/** A baseline run and a run with the stalled subscriber, on one server. */
export async function compareStall(
  bin: string | undefined,
  fastSubscribers: number,
  measureMs: number,
): Promise<SlowConsumerComparison> {
  const common = { bin, fastSubscribers, rate: OFFERED_RATE, measureMs };
  const without = await runSlowConsumer({ ...common, stalled: false });
  const withStall = await runSlowConsumer({ ...common, stalled: true });
  return { fastSubscribers, measureMs, without, with: withStall };
}

/** Slow consumers: our server and nats-server 2.9.10, each without and with the stall. */
export const slowConsumers: Section = {
  name: 'slow-consumers',
  title: 'Slow consumers',
  share: 1,
  async run(context: SectionContext) {
    // Four runs of the measurement plus about 5 s of setup each.
    const measureMs = Math.max(5_000, Math.min(60_000, context.budgetMs / 4 - 5_000));
    const ours = await compareStall(slipstreamServerBin, FULL_FAST_SUBSCRIBERS, measureMs);
    context.log(`slipstream ${JSON.stringify(ours)}`);
    const nats = await compareStall(undefined, FULL_FAST_SUBSCRIBERS, measureMs);
    context.log(`nats-server ${JSON.stringify(nats)}`);
    return { figures: stallFigures(ours, nats), details: DETAILS };
  },
};

const change = (c: SlowConsumerComparison) =>
  ((c.with.fastRate / c.without.fastRate - 1) * 100).toFixed(1);
const rates = (c: SlowConsumerComparison) =>
  `${c.without.fastRate} → ${c.with.fastRate} msg/s (${change(c)}%; slowest ${c.with.slowestFastRate})`;
const cutOff = (run: SlowConsumerRun) =>
  run.cutOff ? `yes, ${((run.cutOffAfterMs ?? 0) / 1_000).toFixed(1)} s after it stalled` : 'no';

export function stallFigures(
  ours: SlowConsumerComparison,
  nats?: SlowConsumerComparison,
): Figure[] {
  const trials = `${ours.fastSubscribers} fast subscribers, ${OFFERED_RATE} msg/s offered, ${ours.measureMs / 1_000} s measured per run`;
  return [
    {
      check:
        "a fast subscriber's rate without → with one stalled subscriber (must stay within 10%)",
      trials,
      ours: rates(ours),
      reference: nats && rates(nats),
      holds: ours.with.fastRate >= 0.9 * ours.without.fastRate,
    },
    {
      check: 'the stalled subscriber cut off as a slow consumer',
      trials,
      ours: cutOff(ours.with),
      reference: nats && cutOff(nats.with),
      holds: ours.with.cutOff,
    },
  ];
}

const DETAILS = [
  `A publisher offers ${OFFERED_RATE} messages a second of 128 bytes on one subject, paced by the`,
  'clock, to fast subscribers (raw sockets that count the bytes reaching them), and 32 KiB every',
  '10 ms on a flood subject to one more subscriber. In the baseline run that subscriber reads; in',
  'the stalled run its socket stops reading after a second of warm-up, so the server must hold',
  'back its messages and, past its limits, close it as a slow consumer. Both servers run with',
  `\`${SLOW_CONSUMER_CONFIG.replace('\n', '`, `')}\` so that happens within seconds. The figure is a fast`,
  "subscriber's mean received rate over the measurement, baseline beside stalled; the cut-off is",
  'the server\'s "Slow Consumer Detected" log line.',
].join('\n');
