import { basename } from 'node:path';
import { defineProject } from 'vitest/config';

/**
 * The vitest project of one package: tests live in its test/ folder and are named *.test.ts.
 * Servers and sockets make some tests slow on a loaded 2-core machine, hence the generous
 * timeouts; speed is measured by benchmarks, never by tests.
 * @param {string} dir the package folder (import.meta.dirname of its vitest.config.ts)
 * @param {import('vitest/config').TestProjectInlineConfiguration['test']} [overrides]
 */
export function packageProject(dir, overrides = {}) {
  return defineProject({
    test: {
      name: basename(dir),
      root: dir,
      include: ['test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...overrides,
    },
  });
}
