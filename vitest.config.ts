import { defineConfig } from 'vitest/config';

// One run over every package; the JSON report feeds the pass/fail line that .ci/run prints.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'tooling/*/vitest.config.ts',
    ],
    reporters: ['default', ['json', { outputFile: '.reports/vitest.json' }]],
  },
});
