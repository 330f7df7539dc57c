// nats.c's own tests of the server features ours has, with slipstream-server as the server they
// start: the suite built from Debian's source package (or NATSC_TESTSUITE, see the README), one
// test at a time on its fixed ports, hence a heavy file. A machine that cannot build the suite
// (no deb-src entry, no cmake) reports these tests as skipped with the reason.
import { MissingSystemComponentError } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { runTest } from '../src/run-test.js';
import { serverUnderTest } from '../src/servers.js';
import { findSuite } from '../src/suite.js';
import { type Feature, testsUsing } from '../src/test-list.js';

/** The features whose tests run: each test must pass against ours (not skip for its version). */
const subsets: readonly Feature[] = ['leafnode', 'cluster'];
/** Tests left out of those: a member of our clusters refuses to run JetStream. */
const leftOut: readonly Feature[] = ['jetstreamCluster'];
const perTestMs = 120_000;

// Built while the file is collected (about a minute the first time, then cached), so that each test of
// the subsets is a test here.
const lookup = await findSuite({ build: true, log: () => {} });

describe("nats.c's tests with slipstream-server", () => {
  if ('unavailable' in lookup) {
    it('runs the suite', () => {
      throw new MissingSystemComponentError(
        `nats.c's test suite cannot be built: ${lookup.unavailable}`,
      );
    });
    return;
  }
  const { suite } = lookup;
  for (const feature of subsets) {
    const excluded = new Set(leftOut.flatMap((other) => testsUsing(suite, other)));
    const names = testsUsing(suite, feature).filter((name) => !excluded.has(name));
    describe(`${feature} tests (${suite.origin})`, () => {
      if (names.length === 0) {
        it.skip(`this version of the suite has no ${feature} tests`, () => {});
        return;
      }
      for (const name of names) {
        it(name, { timeout: perTestMs + 10_000 }, async () => {
          const result = await runTest(suite, await serverUnderTest('slipstream'), name, perTestMs);
          expect(result.outcome, result.failure).toBe('passed');
        });
      }
    });
  }
});
