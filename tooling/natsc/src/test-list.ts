import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsCSuite } from './suite.js';

/**
 * The client tests of the suite, in the order nats.c lists them: `test/list.txt` in 3.4.1 (one
 * name a line), `test/list_test.txt` later (`_test(Name)` a line; benchmarks and NATS Streaming
 * have lists of their own, left out here).
 */
export function listTests(testDir: string): string[] {
  const file = ['list_test.txt', 'list.txt'].map((name) => join(testDir, name)).find(existsSync);
  if (!file) throw new Error(`no list.txt or list_test.txt in ${testDir}`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^_test\((.*)\)$/, '$1'))
    .filter((name) => name !== '');
}

/** Server features a test may start servers with, each recognised in the command lines and configs of test.c. */
export const features = {
  /** A server with a leafnodes block, a hub or a leaf. */
  leafnode: /leafnodes\s*[{:]/,
  /** Servers joined by routes: `-cluster`, `-routes` or a cluster block. */
  cluster: /-routes\b|-cluster\b|\bcluster\s*[{:]/,
  /** A cluster whose members run JetStream: one command line with both `-js` and `-cluster`. */
  jetstreamCluster: /"[^"\n]*(?:-js\b[^"\n]*-cluster\b|-cluster\b[^"\n]*-js\b)[^"\n]*"/,
} as const;
export type Feature = keyof typeof features;

/**
 * The suite's tests whose servers use the feature: the test function's own text, or that of a
 * helper it calls (however deep), mentions it. Read from test.c, so it follows whichever version
 * is built. In the order of the suite's list.
 */
export function testsUsing(suite: NatsCSuite, feature: Feature): string[] {
  const bodies = functionBodies(readFileSync(join(suite.testDir, 'test.c'), 'utf8'));
  const using = new Set(
    [...bodies].filter(([, body]) => features[feature].test(body)).map(([name]) => name),
  );
  // Callers of a function that uses it use it too, until no new caller turns up.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, body] of bodies) {
      if (using.has(name)) continue;
      if ([...using].some((callee) => body.includes(`${callee}(`))) {
        using.add(name);
        grew = true;
      }
    }
  }
  return suite.tests.filter((name) => using.has(`test_${name}`));
}

/**
 * Every top-level function of a C file in nats.c's style, by name: the name starts a line (the
 * return type on the line before, or `void` before it on the same line), the body opens with a
 * `{` line and ends at the next `}` line.
 */
function functionBodies(source: string): Map<string, string> {
  const bodies = new Map<string, string>();
  const lines = source.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const header = /^(?:[A-Za-z_][\w ]*\s+\**)?([A-Za-z_]\w*)\s*\([^;]*\)\s*$/.exec(lines[i] ?? '');
    if (!header?.[1] || lines[i + 1] !== '{') continue;
    const end = lines.indexOf('}', i + 1);
    if (end < 0) break;
    bodies.set(header[1], lines.slice(i + 2, end).join('\n'));
    i = end;
  }
  return bodies;
}
