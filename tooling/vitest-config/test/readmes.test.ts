// Every README.md of the repository: no issue numbers, and each "not yet" backed by a test (see
// readme-claims.ts and CONTRIBUTING.md).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaresTest, readReadme } from './readme-claims.js';
import { repoFiles, repoRoot } from './repo-files.js';

const readmes = repoFiles(['.'], (name) => name === 'README.md');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

describe('reading a README', () => {
  const sample = [
    '# Thing',
    '',
    'Fixed in issue 11, see #12 and issues #3; not `ORDERS#3` or [&#8212;].',
    '',
    '```',
    '[#1] Received: not yet parsed',
    '```',
    '',
    '- Batch gets are not',
    '  there yet. <!-- test: a/b.test.ts "batch gets" -->',
    '- Everything else works (it prints `not built yet` when it is not built).',
    '',
    '## Not yet',
    '',
    'Paging. <!-- test: a/c.test.ts "pages" --> <!-- test: a/c.test.ts "pages twice" -->',
    '',
    '| key | |',
    '| `mqtt` | refused |',
    '',
    '## Tests',
    '',
    'All of them.',
  ].join('\n');

  it('finds issue numbers outside code blocks', () => {
    expect(readReadme(sample).issueNumbers.map((found) => found.line)).toEqual([3]);
  });

  it('finds the claims, wrapped lines and a "Not yet" section included, with their markers', () => {
    expect(readReadme(sample).claims.map(({ line, tests }) => ({ line, tests }))).toEqual([
      { line: 9, tests: [{ path: 'a/b.test.ts', title: 'batch gets' }] },
      {
        line: 15,
        tests: [
          { path: 'a/c.test.ts', title: 'pages' },
          { path: 'a/c.test.ts', title: 'pages twice' },
        ],
      },
      { line: 17, tests: [] },
      { line: 18, tests: [] },
    ]);
  });

  it('takes a todo or a running test for a claim, not a skipped one', () => {
    const source = [
      "it.todo('batch gets');",
      "it('refuses mqtt', () => {});",
      "it.each(['ocsp'])(\n  'refuses %s', () => {});",
      "it.skip('pages', () => {});",
    ].join('\n');
    expect(declaresTest(source, 'batch gets')).toBe(true);
    expect(declaresTest(source, 'refuses mqtt')).toBe(true);
    expect(declaresTest(source, 'refuses %s')).toBe(true);
    expect(declaresTest(source, 'pages')).toBe(false);
    expect(declaresTest(source, 'batch')).toBe(false);
  });
});

describe('the READMEs of the repository', () => {
  it('are all read', () => {
    expect(readmes).toContain('README.md');
    expect(readmes).toContain('packages/jetstream/README.md');
  });

  it('name no issue numbers', () => {
    const found = readmes.flatMap((path) =>
      readReadme(read(path)).issueNumbers.map(({ line, text }) => `${path}:${line}: ${text}`),
    );
    expect(found).toEqual([]);
  });

  it('back every "not yet", "not implemented" and "not supported" with a todo or a test of the refusal', () => {
    const unbacked = readmes.flatMap((path) =>
      readReadme(read(path)).claims.flatMap(({ line, text, tests }) => {
        const where = `${path}:${line}: ${text.split('\n')[0].trim()}`;
        if (tests.length === 0) return [`${where} (no <!-- test: ... --> marker)`];
        return tests
          .filter(({ path: file, title }) => {
            return !existsSync(join(repoRoot, file)) || !declaresTest(read(file), title);
          })
          .map(({ path: file, title }) => `${where} (no test "${title}" in ${file})`);
      }),
    );
    expect(unbacked).toEqual([]);
  });
});
