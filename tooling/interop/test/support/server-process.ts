import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort, waitForPort } from '@slipstream/test-servers';

/** The built app, found through the workspace dependency rather than a relative path. */
export const serverMain = join(
  dirname(createRequire(import.meta.url).resolve('slipstream-server/package.json')),
  'dist',
  'main.js',
);

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  readonly httpPort: number;
  readonly child: ChildProcess;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs `node apps/server/dist/main.js` on free 127.0.0.1 ports with these extra arguments. */
export async function startServerProcess(args: readonly string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const httpPort = await freePort();
  const child = spawn(
    process.execPath,
    [serverMain, '-a', '127.0.0.1', '-p', String(port), '-m', String(httpPort), ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  await waitForPort(port, child, () => output);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    httpPort,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
