import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, expect, vi } from 'vitest';

// Runs the built bin (bin/slip.js, which imports dist/) as a person or a script would.

export const bin = join(import.meta.dirname, '..', 'bin', 'slip.js');

export interface SlipResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A slip process still running (sub, reply...), its output so far, and how it ended. */
export interface RunningSlip {
  readonly pid: number | undefined;
  stdout(): string;
  stderr(): string;
  /** Waits (up to 10 s) until stdout or stderr holds `text`. */
  printed(text: string): Promise<void>;
  signal(name: NodeJS.Signals): void;
  readonly done: Promise<SlipResult>;
}

/**
 * Environment of every run: a config dir of its own (contexts), no colour settings inherited
 * from the terminal running the tests, and no NATS_* variables of the person running them.
 */
export function slipEnv(configDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: configDir, ...extra };
  for (const name of [
    'NO_COLOR',
    'FORCE_COLOR',
    'NATS_URL',
    'NATS_USER',
    'NATS_PASSWORD',
    'NATS_CREDS',
    'NATS_CONTEXT',
  ]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

export function startSlip(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): RunningSlip {
  const child = spawn(process.execPath, [bin, ...args], {
    env,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<SlipResult>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    pid: child.pid,
    stdout: () => stdout,
    stderr: () => stderr,
    printed: (text) =>
      vi.waitFor(() => expect(stdout + stderr).toContain(text), { timeout: 10_000, interval: 20 }),
    signal: (name) => child.kill(name),
    done,
  };
}

/** A config dir for the contexts of one test file, and a runner of slip commands using it. */
export async function slipHome() {
  const dir = await mkdtemp(join(tmpdir(), 'slip-config-'));
  return {
    dir,
    env: (extra?: Record<string, string>) => slipEnv(dir, extra),
    /** Runs `slip args...` to its end (killed after 20 s). */
    run: async (args: readonly string[], extra?: Record<string, string>, input?: string) => {
      const running = startSlip(args, slipEnv(dir, extra), input);
      const timer = setTimeout(() => running.signal('SIGKILL'), 20_000);
      try {
        return await running.done;
      } finally {
        clearTimeout(timer);
      }
    },
    start: (args: readonly string[], extra?: Record<string, string>) =>
      startSlip(args, slipEnv(dir, extra)),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Runners of `slip -s <url> ...` for one server (its URL read at each run, as servers start in
 * beforeAll): `run` gives the result, `json` runs with `--json` and parses what a success printed.
 */
export function slipAgainst(home: Awaited<ReturnType<typeof slipHome>>, url: () => string) {
  const run = (...args: string[]) => home.run(['-s', url(), ...args]);
  const json = async (...args: string[]) => {
    const result = await run('--json', ...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  };
  return { run, json };
}

/**
 * A test file's server (started before its tests, stopped after them with the config dir) and
 * runners of slip against it; `server()` and `home()` once the tests run.
 */
export function slipSuite(start: () => Promise<RunningNatsServer>) {
  let server: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;
  let runners: ReturnType<typeof slipAgainst>;
  beforeAll(async () => {
    [server, home] = await Promise.all([start(), slipHome()]);
    runners = slipAgainst(home, () => server.url);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), home?.remove()]);
  });
  return {
    server: () => server,
    home: () => home,
    run: (...args: string[]) => runners.run(...args),
    json: (...args: string[]) => runners.json(...args),
  };
}

/** What a failed command gives: exit status 1, nothing on stdout, one error line. */
export function failure(message: string): SlipResult {
  return { code: 1, stdout: '', stderr: `slip: error: ${message}\n` };
}

// The slipstream-server command, as its package declares it; it reads nats-server's config file.
const slipstreamServerBin = (() => {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('slipstream-server/package.json');
  const { bin: bins } = require(packageJson) as { bin: Record<string, string> };
  return join(dirname(packageJson), bins['slipstream-server'] as string);
})();

/** Our server, slipstream-server, with the text of a nats-server config file if given. */
export function startOurServer(config?: string): Promise<RunningNatsServer> {
  return startNatsServer({ bin: slipstreamServerBin, config });
}

/** Both servers, started with the same nats-server config file text if given (both read it). */
export function configuredServers(config?: string): ReadonlyArray<{
  name: string;
  start: () => Promise<RunningNatsServer>;
}> {
  return [
    { name: 'slipstream-server', start: () => startOurServer(config) },
    { name: 'nats-server', start: () => startNatsServer({ config }) },
  ];
}

/** The servers the core commands are checked against. */
export const coreServers = configuredServers();

/** Our server with JetStream in a temp store: the stream, consumer, KV and object commands need it. */
export function startJetStreamServer(): Promise<RunningNatsServer> {
  return startNatsServer({ bin: slipstreamServerBin, jetstream: true });
}

/** Both servers with JetStream, for the commands also checked against nats-server 2.9.10. */
export const jetStreamServers: ReadonlyArray<{
  name: string;
  start: () => Promise<RunningNatsServer>;
}> = [
  { name: 'slipstream-server', start: startJetStreamServer },
  { name: 'nats-server', start: () => startNatsServer({ jetstream: true }) },
];
