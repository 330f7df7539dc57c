import { requireSystemComponent } from '@slipstream/test-servers';
import { expect, it } from 'vitest';
import { jetstreamBenchmark } from '../src/jetstream.js';

/** The figure cells of a rendered table: name → ours / ref as printed. */
function ratiosByFigure(markdown: string): Map<string, string> {
  const rows = markdown
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| figure |'));
  return new Map(
    rows.map((line) => {
      const cells = line.split(' | ');
      return [cells[0].slice(2).replace(/ \([^)]*\)$/, ''), cells[3]];
    }),
  );
}

const serverPairs = ['file, always', 'file, lazy', 'memory'];
const perPair = (pair: string) => [
  `${pair}: publish with ack one at a time, p50`,
  `${pair}: publish with ack one at a time, p99`,
  `${pair}: async publish, ≤ 1,000 in flight`,
  `${pair}: server CPU per stored msg`,
  `${pair}: client CPU per acked msg`,
  ...(pair === 'memory' ? [] : [`${pair}: disk per stored msg`]),
];

it('measures every JetStream figure on both servers, both clients and the bare SQLite loop, each a finite ratio', async () => {
  requireSystemComponent('nats-server');
  const output = (await jetstreamBenchmark({ rounds: 1, messages: 5000 })).render();
  const tables = output.split(/^### /m).slice(1);
  expect(tables).toHaveLength(3);

  const expected = [
    ...serverPairs.flatMap(perPair),
    ...serverPairs.flatMap(perPair),
    'file, always: publish with ack one at a time p50 (@nats-io/jetstream) vs one write + fdatasync p50',
    'file, always: publish with ack one at a time p50 (@slipstream/client, pinned) vs one write + fdatasync p50',
    ...[
      ['file, always', 'FULL'],
      ['file, lazy', 'NORMAL'],
    ].flatMap(([pair, mode]) => [
      `${pair}: publish with ack one at a time vs bare ${mode}, 1 row per commit`,
      `${pair}: async publish vs bare ${mode}, 100 rows per commit`,
      `${pair}: async publish vs bare ${mode}, 1,000 rows per commit`,
    ]),
  ];
  const figures = tables.map(ratiosByFigure);
  expect(figures.flatMap((table) => [...table.keys()])).toEqual(expected);
  for (const table of figures) {
    for (const [figure, ratio] of table) {
      expect(`${figure}: ${ratio}`).toMatch(/: \d+\.\d\dx$/);
      expect(Number.parseFloat(ratio)).toBeGreaterThan(0);
    }
  }
  expect(output).toMatch(/Load average \(1 min\) \d+\.\d\d before this table/);
}, 180_000);
