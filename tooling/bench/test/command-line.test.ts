import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Runs the built bench command; none of these reach a benchmark, so nothing is measured. */
async function bench(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [main, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the bench command line', () => {
  it('prints its usage for --help and exits 0', async () => {
    const run = await bench('--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('usage: node --expose-gc dist/main.js');
    expect(run.stdout).toContain('capacity');
    expect(run.stderr).toBe('');
  });

  it('names an unknown option with the usage, without a stack trace, and exits 1', async () => {
    const run = await bench('--round', '5');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Unknown option '--round'");
    expect(run.stderr).toContain('usage:');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an unknown benchmark by name', async () => {
    const run = await bench('codex');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown benchmark codex');
  });
});
