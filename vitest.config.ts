import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One run over every package; the JSON report feeds the pass/fail line that .ci/run prints.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'tooling/*/vitest.config.ts',
      // Files that load the whole machine, run after the rest (see @slipstream/vitest-config).
      'packages/*/vitest.heavy.config.ts',
      'tooling/*/vitest.heavy.config.ts',
    ],
    // Says once which system components are missing, and so which tests were skipped.
    globalSetup: ['tooling/test-servers/dist/global-setup.js'],
    // vitest's default (cores - 1) runs one file at a time on 2 cores, but most files wait on
    // servers, sockets and child processes rather than compute: with two at once the CI's tests
    // took 613 s instead of about 900.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', ['json', { outputFile: '.reports/vitest.json' }]],
  },
});
