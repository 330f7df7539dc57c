import { table } from '../style.js';
import { formatBytes, formatCount } from '../units.js';

/** What one client of a benchmark did: messages and bytes between its first and last message. */
export interface ClientRun {
  msgs: number;
  bytes: number;
  /** performance.now() at its first and last message. */
  start: number;
  end: number;
  /** Milliseconds each request or publish took to be answered, where that is measured. */
  latencies: number[];
}

export interface BenchResult {
  kind: string;
  msgs: number;
  bytes: number;
  seconds: number;
  msgs_per_sec: number;
  bytes_per_sec: number;
  clients: Array<{ msgs: number; seconds: number; msgs_per_sec: number }>;
  latency_ms?: { min: number; p50: number; p90: number; p99: number; max: number };
}

/** The totals over every client: from the earliest start to the latest end, as the nats CLI counts. */
export function summarise(kind: string, runs: readonly ClientRun[]): BenchResult {
  const start = Math.min(...runs.map((r) => r.start));
  const end = Math.max(...runs.map((r) => r.end));
  const seconds = Math.max(end - start, 1e-3) / 1000;
  const msgs = runs.reduce((n, r) => n + r.msgs, 0);
  const bytes = runs.reduce((n, r) => n + r.bytes, 0);
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    kind,
    msgs,
    bytes,
    seconds,
    msgs_per_sec: msgs / seconds,
    bytes_per_sec: bytes / seconds,
    clients: runs.map((r) => {
      const s = Math.max(r.end - r.start, 1e-3) / 1000;
      return { msgs: r.msgs, seconds: s, msgs_per_sec: r.msgs / s };
    }),
    ...(latencies.length
      ? {
          latency_ms: {
            min: latencies[0] as number,
            p50: percentile(latencies, 50),
            p90: percentile(latencies, 90),
            p99: percentile(latencies, 99),
            max: latencies[latencies.length - 1] as number,
          },
        }
      : {}),
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const rate = (msgs: number, bytes: number) =>
  `${formatCount(Math.round(msgs))} msgs/sec ~ ${formatBytes(bytes)}/sec`;

/** The result for a person: the totals, each client, and the latency percentiles. */
export function formatResult(result: BenchResult): string {
  const lines = [`${result.kind} stats: ${rate(result.msgs_per_sec, result.bytes_per_sec)}`];
  if (result.clients.length > 1) {
    result.clients.forEach((c, i) => {
      lines.push(
        ` [${i + 1}] ${formatCount(Math.round(c.msgs_per_sec))} msgs/sec (${formatCount(c.msgs)} msgs)`,
      );
    });
  }
  lines.push(` ${formatCount(result.msgs)} msgs in ${result.seconds.toFixed(3)}s`);
  if (result.latency_ms) {
    const l = result.latency_ms;
    lines.push(
      '',
      table(
        ['Latency', 'min', 'p50', 'p90', 'p99', 'max'],
        [['ms', ...[l.min, l.p50, l.p90, l.p99, l.max].map((v) => v.toFixed(3))]],
      ),
    );
  }
  return lines.join('\n');
}
