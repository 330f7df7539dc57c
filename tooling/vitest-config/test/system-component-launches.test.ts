// Every test and benchmark runs nats-server, Chromium, strace and tmux from the path that
// @slipstream/test-servers' requireSystemComponent finds (or startNatsServer, which asks it): then
// a machine without one skips those tests, and one with nats-server in /usr/sbin, off an
// ordinary user's PATH, runs them. A program started by name instead fails on both machines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoFiles, repoRoot } from './repo-files.js';

const programs = '(?:nats-server|chromium(?:-browser)?|strace|tmux)';
const quote = `['"\`]`;
/** The ways of naming a system program as the command to run. */
const launches = [
  // a process API given the program by name or by a path written out
  new RegExp(
    `\\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync|fork|runProcess|startServerProcess)\\(\\s*${quote}(?:[^'"\`]*/)?${programs}${quote}`,
  ),
  // a shell command line starting with it
  new RegExp(`${quote}(?:[^'"\`\\s]*/)?${programs} -`),
  // an argument vector starting with it
  new RegExp(`\\[\\s*${quote}(?:[^'"\`]*/)?${programs}${quote}\\s*,\\s*${quote}-`),
  // a property that names the program to run
  new RegExp(
    `\\b(?:command|bin|executable|exe|cmd|program)\\s*:\\s*${quote}(?:[^'"\`]*/)?${programs}${quote}`,
  ),
  // the place a package manager puts it
  new RegExp(`/usr/(?:local/)?s?bin/${programs}\\b`),
];
const launchesByName = (line: string) => launches.some((pattern) => pattern.test(line));

// The finder itself, and this file's examples of what it refuses.
const allowed = new Set([
  'tooling/test-servers/src/system-components.ts',
  'tooling/vitest-config/test/system-component-launches.test.ts',
]);

describe('system programs are started only from the path requireSystemComponent found', () => {
  it('recognises the ways of starting one by name', () => {
    const byName = [
      "const proc = spawn('nats-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });",
      "return startServerProcess('nats-server', (port) => ['-p', String(port)]);",
      '{ command: () => `nats-server -a 127.0.0.1 -p 4222` },',
      "return ['nats-server', '-js', '-sd', storeDir];",
      "const tracer = runProcess('strace', ['-f', '-p', pid]);",
      "browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });",
      "execFileSync('/usr/sbin/nats-server', ['--version']);",
      "{ name: 'nats-server', command: 'nats-server', args: (port) => ['-p', String(port)] },",
    ];
    expect(byName.filter((line) => !launchesByName(line))).toEqual([]);
    const throughTheFinder = [
      "const proc = spawn(requireSystemComponent('nats-server'), args);",
      "return [requireSystemComponent('nats-server'), '-js', '-sd', storeDir];",
      "const KINDS = ['nats-server', 'slipstream always'];",
      "{ name: 'nats-server', measure: () => workload(nats) },",
    ];
    expect(throughTheFinder.filter(launchesByName)).toEqual([]);
  });

  it('finds none in the sources and tests of any package', () => {
    const sources = repoFiles(['packages', 'apps', 'tooling'], (name) =>
      /\.(?:[cm]?[jt]s|tsx)$/.test(name),
    ).filter((path) => !allowed.has(path));
    expect(sources.length).toBeGreaterThan(100);
    const offending = sources.flatMap((path) =>
      readFileSync(join(repoRoot, path), 'utf8')
        .split('\n')
        .flatMap((line, i) => (launchesByName(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offending, 'use requireSystemComponent or startNatsServer').toEqual([]);
  });
});
