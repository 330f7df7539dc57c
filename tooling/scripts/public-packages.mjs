// The packages we publish: every workspace package under packages/ and apps/ not marked private.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function publicPackages(root = process.cwd()) {
  const found = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const dir = join(groupDir, name);
      const manifestPath = join(dir, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (!manifest.private) found.push({ dir, manifest });
    }
  }
  return found;
}
