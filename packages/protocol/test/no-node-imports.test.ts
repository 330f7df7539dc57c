import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The package must run unchanged in browsers, Deno and Bun: its built code may import only its
// own files, and it may depend on nothing. This reads the build output, so build first.

const dist = new URL('../dist/', import.meta.url);
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Every module specifier in a built file: static and dynamic imports, re-exports, require(). */
function specifiers(code: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push(match[1]);
  }
  return found;
}

describe('@slipstream/protocol is platform-neutral', () => {
  it('has been built', () => {
    expect(existsSync(dist), 'run the build before this test').toBe(true);
  });

  const files = existsSync(dist) ? readdirSync(dist).filter((f) => f.endsWith('.js')) : [];

  it('builds an index and the modules it re-exports', () => {
    expect(files).toContain('index.js');
    const index = readFileSync(new URL('index.js', dist), 'utf8');
    for (const specifier of specifiers(index)) {
      expect(files).toContain(specifier.slice(2));
    }
  });

  it.each(files)('dist/%s imports only sibling files', (file) => {
    const code = readFileSync(new URL(file, dist), 'utf8');
    for (const specifier of specifiers(code)) {
      expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[\w.-]+\.js$/);
    }
    expect(code).not.toMatch(/['"]node:/);
  });

  it('has no dependencies of any kind', () => {
    for (const field of [
      'dependencies',
      'peerDependencies',
      'optionalDependencies',
      'bundledDependencies',
    ]) {
      expect(Object.keys(packageJson[field] ?? {}), field).toEqual([]);
    }
  });

  it('self-test: the specifier scan finds every kind of import', () => {
    const code = `import a from 'node:fs'; import { b } from "pkg"; export * from './c.js';
      import './d.js'; const e = await import('e'); const f = require("f");`;
    expect(specifiers(code).sort()).toEqual(['./c.js', './d.js', 'e', 'f', 'node:fs', 'pkg']);
  });
});
