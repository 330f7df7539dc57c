// Which tests of nats.c's test.c use a server feature, read from a small test.c in its shape.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NatsCSuite } from '../src/suite.js';
import { listTests, testsUsing } from '../src/test-list.js';

const testDir = join(import.meta.dirname, 'fixtures', 'suite');
const suite: NatsCSuite = {
  binary: '/nonexistent/testsuite',
  testDir,
  origin: 'fixture',
  tests: listTests(testDir),
  argumentsFor: (name) => [name],
};

describe('testsUsing', () => {
  it('finds a feature in the test itself or in a helper it calls, however deep, among listed tests only', () => {
    expect(testsUsing(suite, 'cluster')).toEqual([
      'Routed',
      'RoutedThroughHelper',
      'JetStreamCluster',
    ]);
  });

  it('tells leaf nodes and clusters running JetStream apart', () => {
    expect(testsUsing(suite, 'leafnode')).toEqual(['Leaf']);
    expect(testsUsing(suite, 'jetstreamCluster')).toEqual(['JetStreamCluster']);
  });
});
