import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The package must run unchanged in a browser: no node: modules, no Node globals, and nothing
// imported but zod, @slipstream/protocol (itself browser-safe) and its own files (dependency-cruiser checks the imports too).
const srcDir = join(import.meta.dirname, '..', 'src');
const sources = readdirSync(srcDir).map((file) => ({
  file,
  text: readFileSync(join(srcDir, file), 'utf8'),
}));

describe('browser safety', () => {
  it.each(sources.map((s) => [s.file, s.text] as const))('%s uses no Node-only API', (_, text) => {
    expect(text).not.toMatch(/from ['"]node:/);
    expect(text).not.toMatch(/\bBuffer\b/);
    expect(text).not.toMatch(/\bprocess\./);
    expect(text).not.toMatch(/\brequire\(/);
    for (const [, spec] of text.matchAll(/from '([^']+)'/g)) {
      expect(
        spec === 'zod' || spec === '@slipstream/protocol' || spec!.startsWith('./'),
        spec,
      ).toBe(true);
    }
  });
});
