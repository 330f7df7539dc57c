import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The root of the monorepo. */
export const repoRoot = join(import.meta.dirname, '../../..');

// Installed, built or generated: nobody writes these by hand.
const skippedDirs = new Set(['node_modules', 'dist', '.git', '.turbo', '.reports']);

/** Paths (relative to the repo root, with `/`) of the files under `dirs` whose name passes `keep`. */
export function repoFiles(dirs: readonly string[], keep: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skippedDirs.has(entry.name)) walk(path);
      } else if (keep(entry.name)) {
        found.push(relative(repoRoot, path));
      }
    }
  };
  for (const dir of dirs) walk(join(repoRoot, dir));
  return found.sort();
}
