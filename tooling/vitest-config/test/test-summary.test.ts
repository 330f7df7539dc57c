// tooling/scripts/test-summary.mjs, the last line of CI, read from real vitest runs.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureRun, runFixture } from './run-fixture.js';

const script = join(import.meta.dirname, '../../scripts/test-summary.mjs');

async function summarize(...args: string[]): Promise<{ line: string; exitCode: number }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [script, ...args]);
    return { line: stdout.trim(), exitCode: 0 };
  } catch (error) {
    const failed = error as { stdout: string; code: number };
    return { line: failed.stdout.trim(), exitCode: failed.code };
  }
}

const runs: FixtureRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => run.remove()));
});

/** Runs vitest on the fixture, then the summary on its report and exit status, as .ci/run does. */
async function summaryOf(fixture: string) {
  const run = await runFixture(fixture);
  runs.push(run);
  return summarize(run.reportPath, '--exit-code', String(run.exitCode));
}

describe('the test summary line', () => {
  it('counts a clean run as passed', async () => {
    expect(await summaryOf('passes.fixture.ts')).toEqual({
      line: '1 passed, 0 failed',
      exitCode: 0,
    });
  });

  it('counts a file whose beforeAll threw as failed, not only skipped', async () => {
    expect(await summaryOf('before-all-throws.fixture.ts')).toEqual({
      line: '1 passed, 1 failed, 2 skipped',
      exitCode: 1,
    });
  });

  it('counts a file whose afterAll threw as failed', async () => {
    expect(await summaryOf('after-all-throws.fixture.ts')).toEqual({
      line: '1 passed, 1 failed',
      exitCode: 1,
    });
  });

  it('counts an unhandled error as a failure', async () => {
    expect(await summaryOf('unhandled-error.fixture.ts')).toEqual({
      line: '1 passed, 1 failed',
      exitCode: 1,
    });
  });

  it('fails when vitest failed, even if its report looks clean', async () => {
    const run = await runFixture('passes.fixture.ts');
    runs.push(run);
    expect(await summarize(run.reportPath, '--exit-code', '1')).toEqual({
      line: '1 passed, 1 failed',
      exitCode: 1,
    });
  });

  it('fails without a report', async () => {
    expect(await summarize('/nonexistent/report.json')).toEqual({
      line: '0 passed, 1 failed',
      exitCode: 1,
    });
  });
});
