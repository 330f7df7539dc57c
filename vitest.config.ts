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
    reporters: ['default', ['json', { outputFile: '.reports/vitest.json' }]],
  },
});
