import { spawn } from 'node:child_process';
import type { NatsCSuite } from './suite.js';

/** The server executable a run gives the suite, and what its `--version` says. */
export interface ServerUnderTest {
  name: string;
  executable: string;
  /** Passed as NATS_TEST_SERVER_VERSION: the suite skips tests of features newer than it. */
  version: string;
}

export type Outcome = 'passed' | 'failed' | 'skipped' | 'timed out';

export interface TestResult {
  name: string;
  outcome: Outcome;
  seconds: number;
  /** For a test that did not pass: the output around its first failure. */
  failure?: string;
}

/**
 * Runs one test of the suite (the testsuite binary runs one a call), with the server's
 * executable in NATS_TEST_SERVER_EXE: every server the test starts is that executable, on the
 * suite's fixed ports (4222, 6222, 7422, …), so tests run one at a time. A test past its time is
 * killed with its process group, which holds the servers it started.
 */
export function runTest(
  suite: NatsCSuite,
  server: ServerUnderTest,
  name: string,
  timeoutMs: number,
): Promise<TestResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(suite.binary, suite.argumentsFor(name), {
      cwd: suite.testDir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NATS_TEST_SERVER_EXE: server.executable,
        NATS_TEST_SERVER_VERSION: server.version,
      },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      // A server the test left behind (it crashed before stopping them) would hold the ports.
      killGroup(child.pid);
      const output = Buffer.concat(chunks).toString();
      const seconds = (performance.now() - started) / 1000;
      resolve({ name, seconds, ...classify(output, { code, signal, timedOut }) });
    };
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ name, seconds: 0, outcome: 'failed', failure: String(error) });
    });
    child.on('close', finish);
  });
}

/**
 * A step that skips the rest of its test: `Skipping since …`, `Skip when (not) running on
 * Windows`, `Skipped when built with(out) SSL support`, `Skipping test since no tag detected`;
 * not the `Skip: ` and `Skip again: ` steps of tests about skipping a message.
 */
const skipStep = /^#\d+ Skip(?:ping|ped)? (?:since|when|test)\b/;

/**
 * A test passed when the binary said ALL PASSED and exited 0; it was skipped when one of its
 * steps says it skips (`Skipping since requires server version …`, `Skip when not running on
 * Windows`), which ends a test early. Anything else is a failure, described by its first FAILED
 * step and the error stack after it, or by the output's end when the binary crashed.
 */
export function classify(
  rawOutput: string,
  exit: { code: number | null; signal: NodeJS.Signals | null; timedOut: boolean },
): { outcome: Outcome; failure?: string } {
  // The suite colours its steps with ANSI codes.
  const lines = rawOutput.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  if (exit.code === 0 && lines.some((line) => line.trim() === 'ALL PASSED')) {
    const skips = lines.some((line) => skipStep.test(line) && line.endsWith('PASSED'));
    return { outcome: skips ? 'skipped' : 'passed' };
  }
  const failedAt = lines.findIndex((line) => /^#\d+ .*FAILED$/.test(line));
  const excerpt =
    failedAt >= 0
      ? lines.slice(failedAt, failedAt + 4)
      : lines.filter((line) => line.trim() !== '').slice(-4);
  const how = exit.timedOut
    ? ''
    : exit.signal
      ? `(ended by ${exit.signal}) `
      : failedAt < 0
        ? `(exit ${exit.code}) `
        : '';
  return {
    outcome: exit.timedOut ? 'timed out' : 'failed',
    failure:
      how +
      excerpt
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join(' | '),
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
