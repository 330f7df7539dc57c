import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort, onFreePorts } from './free-port.js';

/** A child process whose output is kept for assertions and error messages. */
export interface RunningProcess {
  readonly child: ChildProcess;
  /** What the process printed on stdout and stderr so far (the first MiB of it). */
  output(): string;
  /** Resolves with the exit code once the process has exited and its output has been read. */
  readonly exit: Promise<number | null>;
  /** Sends `signal` (SIGKILL after 10 s) unless the process already exited; resolves with `exit`. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A server process that was given a free 127.0.0.1 port and is accepting connections on it. */
export interface ServerProcess extends RunningProcess {
  readonly url: string;
  readonly port: number;
}

// A long benchmark must not grow the log without bound; the start holds what explains a failure.
const outputLimit = 1024 * 1024;

/**
 * Spawns `command`, collecting its output. A system program (nats-server, strace) is given by the
 * path requireSystemComponent found, so that a missing one skips the test rather than failing it.
 */
export function runProcess(command: string, args: readonly string[]): RunningProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (data: unknown) => {
    if (output.length < outputLimit) output += data;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // A command that cannot be spawned reports here, then exits with a negative code.
  child.once('error', (error) => collect(`${error}\n`));
  // 'close' rather than 'exit': by then all output has been read.
  const exit = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  return {
    child,
    output: () => output,
    exit,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return exit;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Runs a server on a free 127.0.0.1 port (`args` receives it) and resolves once the port accepts
 * connections; a server that exits or never listens is killed and reported with its output.
 */
export async function startServerProcess(
  command: string,
  args: (port: number) => readonly string[],
): Promise<ServerProcess> {
  return onFreePorts(async () => {
    const port = await freePort();
    const running = runProcess(command, args(port));
    try {
      await waitForPort(port, running.child, running.output);
    } catch (error) {
      running.child.kill('SIGKILL');
      throw error;
    }
    return { ...running, url: `nats://127.0.0.1:${port}`, port };
  });
}

/** Polls until a TCP connect to the port succeeds; fails early if the process exits. */
export async function waitForPort(
  port: number,
  child?: ChildProcess,
  output: () => string = () => '',
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`server exited before listening on ${port}: ${output()}`);
    }
    if (await canConnect(port)) return;
    if (Date.now() > deadline)
      throw new Error(`nothing listening on ${port} after ${timeoutMs} ms: ${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Waits until the process has printed `text` (a server's ready line); fails early if it exits.
 * Unlike a probe connection, this leaves nothing behind that the server counts as a client.
 */
export async function waitForOutput(
  text: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!output().includes(text)) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the process exited before printing "${text}": ${output()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`no "${text}" after ${timeoutMs} ms: ${output()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
