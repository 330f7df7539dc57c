import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The package runs in browsers too: its sources import only its three workspace dependencies
// (whose browser builds exist), @noble/hashes's SHA-256 (plain JS; the object store hashes
// with it because WebCrypto cannot hash a stream piece by piece) and its own files, and use no
// Node-only API. A Chromium run comes with the browser suite.
const allowed = new Set([
  '@slipstream/client',
  '@slipstream/jsapi',
  '@slipstream/protocol',
  '@noble/hashes/sha2',
]);
const srcDir = join(import.meta.dirname, '..', 'src');
const sources = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(srcDir, file), 'utf8') }));

describe('browser safety', () => {
  it.each(sources.map((s) => [s.file, s.text] as const))('%s uses no Node-only API', (_, text) => {
    expect(text).not.toMatch(/\bBuffer\b/);
    expect(text).not.toMatch(/\bprocess\./);
    expect(text).not.toMatch(/\brequire\(/);
    for (const [, spec] of text.matchAll(/from '([^']+)'/g)) {
      expect(allowed.has(spec!) || /^\.\.?\//.test(spec!), spec).toBe(true);
    }
  });
});
