import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hideVariable } from '@slipstream/test-servers';

const fixtures = join(import.meta.dirname, 'fixtures');
const vitestCli = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

export interface FixtureRun {
  exitCode: number | null;
  /** What vitest printed, stdout and stderr together. */
  output: string;
  /** The path of its JSON report (in a temp dir that `remove()` deletes). */
  reportPath: string;
  report: { success: boolean; numPassedTests: number; numPendingTests: number };
  remove(): Promise<void>;
}

// Where @slipstream/test-servers looks for system components: each test run says it in `env`.
const componentVariables = new Set([
  hideVariable,
  'NATS_SERVER_BIN',
  'CHROMIUM_PATH',
  'STRACE_BIN',
  'TMUX_BIN',
]);

/**
 * Runs vitest on one file of fixtures/ in a child process, as `pnpm test` would, with `env`
 * added to an environment that has no CI variable, none of the vitest running this test and none
 * of the variables that tell where system components are.
 */
export async function runFixture(
  file: string,
  env: Record<string, string> = {},
): Promise<FixtureRun> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-fixture-'));
  const reportPath = join(dir, 'report.json');
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => key !== 'CI' && !/^(VITEST|TEST$)/.test(key) && !componentVariables.has(key),
    ),
  );
  const child = spawn(
    process.execPath,
    [
      vitestCli,
      'run',
      '--config',
      join(fixtures, 'vitest.config.ts'),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath}`,
      file,
    ],
    { cwd: fixtures, env: { ...inherited, NO_COLOR: '1', ...env } },
  );
  let output = '';
  child.stdout.on('data', (data) => (output += data));
  child.stderr.on('data', (data) => (output += data));
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const report = JSON.parse(await readFile(reportPath, 'utf8'));
  return {
    exitCode,
    output,
    reportPath,
    report,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
