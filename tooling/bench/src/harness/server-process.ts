import { spawn } from 'node:child_process';
import { freePort, waitForPort } from '@slipstream/test-servers';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/**
 * Starts a server as a child process of the benchmark, so its CPU and memory can be read from
 * /proc/<pid>. `args` receives the free port chosen for it.
 */
export async function startServerProcess(
  command: string,
  args: (port: number) => string[],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(command, args(port), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` },
  });
  let output = '';
  const collect = (data: Buffer) => {
    // Keep the start of the log for error messages; a long run must not grow it without bound.
    if (output.length < 64 * 1024) output += data;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.once('error', (error) => collect(Buffer.from(String(error))));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
