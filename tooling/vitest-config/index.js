import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineProject } from 'vitest/config';

// Reports tests that need an uninstalled nats-server or Chromium as skipped (see the file).
const runner = fileURLToPath(new URL('./skipping-runner.js', import.meta.url));

// Test files that load the whole machine (hostile connection storms, 100,000-message bursts) are
// named *.heavy.test.ts. On a shared 2-core machine they starve whatever runs beside them and
// are starved in turn, so they run in a project of their own, after every other file, one at a time.
const heavyFiles = 'test/**/*.heavy.test.ts';

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
      exclude: [...configDefaults.exclude, heavyFiles],
      runner,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...overrides,
    },
  });
}

/**
 * The project of a package's *.heavy.test.ts files (its vitest.heavy.config.ts): named
 * `<package>-heavy`, run once every other project is done, one file at a time.
 * @param {string} dir the package folder
 * @param {import('vitest/config').TestProjectInlineConfiguration['test']} [overrides]
 */
export function heavyProject(dir, overrides = {}) {
  return packageProject(dir, {
    include: [heavyFiles],
    exclude: configDefaults.exclude,
    fileParallelism: false,
    sequence: { groupOrder: 1 },
    ...overrides,
    name: `${overrides.name ?? basename(dir)}-heavy`,
  });
}
