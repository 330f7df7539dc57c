import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Outcome, runTest, type TestResult } from './run-test.js';
import { serverUnderTest } from './servers.js';
import { findSuite } from './suite.js';
import { type Feature, features, testsUsing } from './test-list.js';

const usage = `usage: node dist/main.js [--server slipstream|nats-server|<path>] [--tests all|leafnode|cluster|Name,Name]
       [--timeout <seconds per test, 120>] [--json <file>] [--no-build]`;

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'slipstream' },
    tests: { type: 'string', default: 'all' },
    timeout: { type: 'string', default: '120' },
    json: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const lookup = await findSuite({ build: !values['no-build'], log: (line) => console.log(line) });
if ('unavailable' in lookup) {
  console.error(`nats.c's test suite is not available: ${lookup.unavailable}`);
  process.exit(2);
}
const { suite } = lookup;
const server = await serverUnderTest(values.server);
const names = selectTests(values.tests);
const timeoutMs = Number(values.timeout) * 1000;
console.log(
  `nats.c suite (${suite.origin}), ${names.length} tests, server ${server.executable} (${server.version})`,
);

const results: TestResult[] = [];
for (const name of names) {
  const result = await runTest(suite, server, name, timeoutMs);
  results.push(result);
  const failure = result.failure ? `  ${result.failure}` : '';
  console.log(`${result.outcome.padEnd(9)} ${name} (${result.seconds.toFixed(1)} s)${failure}`);
}

const counts = new Map<Outcome, number>();
for (const { outcome } of results) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
const summary = (['passed', 'failed', 'timed out', 'skipped'] as const)
  .map((outcome) => `${counts.get(outcome) ?? 0} ${outcome}`)
  .join(', ');
console.log(`${server.name}: ${summary} of ${results.length}`);
if (values.json) {
  const report = { suite: suite.origin, server: server.version, results };
  writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
process.exit(
  results.every((result) => result.outcome === 'passed' || result.outcome === 'skipped') ? 0 : 1,
);

/** The tests `--tests` names: all, those of one server feature, or a comma-separated list. */
function selectTests(choice: string): string[] {
  if (choice === 'all') return [...suite.tests];
  if (Object.hasOwn(features, choice)) return testsUsing(suite, choice as Feature);
  const listed = new Set(suite.tests);
  const names = choice.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !listed.has(name));
  if (unknown.length > 0) throw new Error(`not tests of this suite: ${unknown.join(', ')}`);
  return names;
}
