import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { HOSTILE_MARK } from './api-cases.js';

/**
 * Files the fuzz made outside the store: anything in the server's directory but outside its
 * store (`storeDir`) other than the config, and anything named with the fuzz's mark in the
 * directories a `../` or an absolute name could reach (the temp directory and its parent, /).
 */
export function filesOutsideStore(serverDir: string, storeDir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (path === storeDir) continue;
      if (entry.isDirectory()) walk(path);
      else if (relative(serverDir, path) !== 'server.conf') found.push(path);
    }
  };
  walk(serverDir);
  for (const dir of new Set([dirname(serverDir), tmpdir(), '/', dirname(storeDir)])) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name.includes(HOSTILE_MARK)) found.push(join(dir, name));
    }
  }
  return found;
}
