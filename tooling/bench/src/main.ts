/**
 * Runs the benchmarks named on the command line (codec, server, client, fairness, jetstream,
 * jetstream-client, jetstream-consume, capacity; all by default) and prints
 * one markdown ratio table each. Builds nothing: run `pnpm build` at the repository root first.
 *
 *   node --expose-gc dist/main.js [codec] [server] [client] [fairness] [jetstream] [capacity] [--rounds N] [--messages N]
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { capacityBenchmark } from './capacity.js';
import { clientBenchmark } from './client.js';
import { codecBenchmark } from './codec.js';
import { fairnessBenchmark } from './fairness.js';
import { jetstreamBenchmark } from './jetstream.js';
import { jetstreamClientBenchmark } from './jetstream-client-bench.js';
import { jetstreamConsumeBenchmark } from './jetstream-consume.js';
import { serverBenchmark } from './server.js';

const benchmarks: Record<
  string,
  (options: { rounds: number; messages?: number }) => Promise<{ render(): string }>
> = {
  codec: codecBenchmark,
  server: serverBenchmark,
  client: clientBenchmark,
  fairness: fairnessBenchmark,
  jetstream: jetstreamBenchmark,
  'jetstream-client': jetstreamClientBenchmark,
  'jetstream-consume': jetstreamConsumeBenchmark,
  capacity: capacityBenchmark,
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '7' }, messages: { type: 'string' } },
});
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
  const table = await benchmarks[name]({ rounds, messages });
  console.log(`${table.render()}\n`);
}
