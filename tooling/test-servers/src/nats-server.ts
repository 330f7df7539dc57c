import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, onFreePorts } from './free-port.js';
import { runProcess, waitForOutput } from './server-process.js';
import { requireSystemComponent } from './system-components.js';

export interface NatsServerOptions {
  /** Text of a nats-server config file; `port`, `host` and the store dir are set for you. */
  config?: string;
  /** Extra command-line arguments. */
  args?: string[];
  /** Turn JetStream on with its store in the temp directory. */
  jetstream?: boolean;
  /** Also serve monitoring on a free port. */
  monitoring?: boolean;
  /** Also open a WebSocket listener (no TLS) on a free port. */
  websocket?: boolean;
  /** Reuse this port (for restart tests); a free one otherwise. */
  port?: number;
  /**
   * Executable to run instead, any server that reads nats-server's config file (such as the
   * slipstream-server bin); by default nats-server, found by requireSystemComponent (which
   * skips the calling test if it is not installed).
   */
  bin?: string;
}

export interface RunningNatsServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly httpPort?: number;
  readonly wsPort?: number;
  readonly dir: string;
  readonly process: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and removes the temp directory. */
  stop(): Promise<void>;
  /** Stops the process but keeps the directory, so `restart` finds the same store. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the same server again on the same ports. */
  restart(): Promise<RunningNatsServer>;
}

/** Starts the real nats-server (or `bin`) on 127.0.0.1 and resolves once it accepts connections. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<RunningNatsServer> {
  const bin = options.bin ?? requireSystemComponent('nats-server');
  const dir = await mkdtemp(join(tmpdir(), 'nats-server-'));
  const start = async () =>
    launch(
      dir,
      { ...options, bin },
      {
        port: options.port ?? (await freePort()),
        httpPort: options.monitoring ? await freePort() : undefined,
        wsPort: options.websocket ? await freePort() : undefined,
      },
    );
  return options.port === undefined ? onFreePorts(start) : start();
}

interface Ports {
  port: number;
  httpPort?: number;
  wsPort?: number;
}

async function launch(
  dir: string,
  options: NatsServerOptions & { bin: string },
  ports: Ports,
): Promise<RunningNatsServer> {
  const lines = [options.config ?? '', `host: 127.0.0.1`, `port: ${ports.port}`];
  if (ports.httpPort) lines.push(`http: "127.0.0.1:${ports.httpPort}"`);
  if (ports.wsPort)
    lines.push(`websocket { host: 127.0.0.1, port: ${ports.wsPort}, no_tls: true }`);
  if (options.jetstream) lines.push(`jetstream { store_dir: "${join(dir, 'js')}" }`);
  const configFile = join(dir, 'server.conf');
  await writeFile(configFile, lines.join('\n'));

  const running = runProcess(options.bin, ['-c', configFile, ...(options.args ?? [])]);
  // Not a probe connection: a loaded nats-server may still count a closed probe as a client
  // when the test starts (one too many for a max_connections test, or in /varz).
  await waitForOutput('Server is ready', running.child, running.output);

  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    await running.stop(signal);
  };
  return {
    url: `nats://127.0.0.1:${ports.port}`,
    host: '127.0.0.1',
    port: ports.port,
    httpPort: ports.httpPort,
    wsPort: ports.wsPort,
    dir,
    process: running.child,
    output: running.output,
    kill,
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
    restart: async () => {
      await kill();
      return launch(dir, options, ports);
    },
  };
}
