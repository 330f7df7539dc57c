import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type RunningProcess,
  runProcess,
  slipstreamServerBin,
  startServerProcess,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, expect, vi } from 'vitest';

// Runs dist/main.js as a child process, as a user would run slipstream-server.

const main = join(import.meta.dirname, '..', 'dist', 'main.js');

export function run(args: readonly string[]): RunningProcess {
  return runProcess(process.execPath, [main, ...args]);
}

/** Expects the process to print `text`, waiting a bounded time: output can trail the port or the exit. */
export async function expectPrinted(server: RunningProcess, text: string): Promise<void> {
  await vi.waitFor(() => expect(server.output()).toContain(text), {
    timeout: 10_000,
    interval: 10,
  });
}

/**
 * The installed command on 127.0.0.1 with `fixtures/<reporter>` preloaded, which writes the largest
 * figure it has seen to `out` (read it with `largestReported`); started once it says it is ready.
 */
export async function startReporting(
  reporter: string,
  out: string,
  flags: readonly string[] = [],
): Promise<RunningProcess & { port: number }> {
  const url = pathToFileURL(join(import.meta.dirname, 'fixtures', reporter));
  url.searchParams.set('out', out);
  const server = await startServerProcess(process.execPath, (port) => [
    '--import',
    url.href,
    slipstreamServerBin,
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    ...flags,
  ]);
  await expectPrinted(server, 'Server is ready');
  return server;
}

/** What a reporter of `startReporting` wrote last. */
export async function largestReported(out: string): Promise<number> {
  return Number(await readFile(out, 'utf8'));
}

/** Reads the INFO line a NATS server sends first on a new connection. */
export function readInfo(port: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\r\n');
      if (end < 0) return;
      socket.destroy();
      const line = text.slice(0, end);
      if (!line.startsWith('INFO ')) reject(new Error(`expected INFO, got ${line}`));
      else resolve(JSON.parse(line.slice(5)));
    });
  });
}

/**
 * Sends `text` once the server's INFO has arrived and resolves with every line received, INFO
 * included, once the server closes the connection; fails if it has not closed within 5 s.
 */
export function linesUntilClosed(port: number, text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection; it sent: ${received}`));
    }, 5000);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk) => {
      if (!received) socket.write(text);
      received += chunk;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received.split('\r\n').filter(Boolean));
    });
  });
}

/** Runs the server on a free 127.0.0.1 port, lets `check` look at it, then stops it with `signal`. */
export async function serving(
  args: readonly string[],
  check: (port: number, server: RunningProcess) => Promise<void>,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const server = await startServerProcess(process.execPath, (port) => [
    main,
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    ...args,
  ]);
  try {
    await check(server.port, server);
  } finally {
    server.child.kill(signal);
  }
  expect(await server.exit).toBe(0);
}

/**
 * A fresh temporary directory for the enclosing describe block, made before its tests and
 * removed after them; the returned function gives its path.
 */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error('useTempDir: the directory exists only inside tests');
    return dir;
  };
}
