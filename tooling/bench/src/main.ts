/**
 * Runs the benchmarks named on the command line (codec, server, client, fairness, jetstream,
 * jetstream-client, jetstream-consume, capacity, cluster; all by default) and prints
 * one markdown table each. Builds nothing: run `pnpm build` at the repository root first.
 * `--help` prints the usage (USAGE below).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { capacityBenchmark } from './capacity.js';
import { clientBenchmark } from './client.js';
import { clusterBenchmark } from './cluster.js';
import { CLUSTER_SERVER_KINDS, type ClusterServerKind } from './cluster-members.js';
import { codecBenchmark } from './codec.js';
import { fairnessBenchmark } from './fairness.js';
import { jetstreamBenchmark } from './jetstream.js';
import { jetstreamClientBenchmark } from './jetstream-client-bench.js';
import { jetstreamConsumeBenchmark } from './jetstream-consume.js';
import { serverBenchmark } from './server.js';

const benchmarks: Record<
  string,
  (options: {
    rounds: number;
    messages?: number;
    servers?: ClusterServerKind[];
    members?: number[];
  }) => Promise<{ render(): string }>
> = {
  codec: codecBenchmark,
  server: serverBenchmark,
  client: clientBenchmark,
  fairness: fairnessBenchmark,
  jetstream: jetstreamBenchmark,
  'jetstream-client': jetstreamClientBenchmark,
  'jetstream-consume': jetstreamConsumeBenchmark,
  capacity: capacityBenchmark,
  cluster: clusterBenchmark,
};

const USAGE = `usage: node --expose-gc dist/main.js [benchmark...] [--rounds N] [--messages N]
       node --expose-gc dist/main.js cluster [--server nats-server|slipstream]... [--members 1,2,4]
benchmarks: ${Object.keys(benchmarks).join(', ')} (all when none is named)`;

let parsed: ReturnType<typeof parseCommandLine>;
try {
  parsed = parseCommandLine();
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(1);
}
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const { values, positionals } = parsed;

function parseCommandLine() {
  return parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string', default: '7' },
      messages: { type: 'string' },
      // The cluster benchmark's server kinds (both by default) and cluster sizes.
      server: { type: 'string', multiple: true },
      members: { type: 'string', default: '1,2,4' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
const rounds = Number(values.rounds);
const messages = values.messages === undefined ? undefined : Number(values.messages);
if (messages !== undefined && !(Number.isInteger(messages) && messages > 0)) {
  console.error(
    '--messages must be a positive integer (messages per round, for the jetstream benchmarks)',
  );
  process.exit(1);
}
if (!Number.isInteger(rounds) || rounds < 5) {
  console.error(
    '--rounds must be an integer of at least 5: medians of fewer rounds are noise on a shared machine',
  );
  process.exit(1);
}
const servers = values.server as ClusterServerKind[] | undefined;
const badServer = servers?.find((kind) => !CLUSTER_SERVER_KINDS.includes(kind));
if (badServer !== undefined) {
  console.error(`--server ${badServer}: choose from ${CLUSTER_SERVER_KINDS.join(', ')}`);
  process.exit(1);
}
const members = values.members.split(',').map(Number);
if (!members.every((n) => Number.isInteger(n) && n > 0)) {
  console.error('--members must be cluster sizes separated by commas, such as 1,2,4');
  process.exit(1);
}
const selected = positionals.length > 0 ? positionals : Object.keys(benchmarks);
const unknown = selected.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(benchmarks).join(', ')}`,
  );
  process.exit(1);
}

const cpu = cpus();
console.log(
  `${new Date().toISOString()} · ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} · ${(totalmem() / 2 ** 30).toFixed(1)} GiB · Node ${process.version} · load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} · medians of ${rounds} alternating rounds\n`,
);
for (const name of selected) {
  const table = await benchmarks[name]({ rounds, messages, servers, members });
  console.log(`${table.render()}\n`);
}
