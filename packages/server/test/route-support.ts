import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import {
  type ClusterOptions,
  type NatsServer,
  type ServerOptions,
  startServer,
} from '../src/index.js';
import { recordingLogger } from './leafnode-support.js';

/** A member of a test cluster: nats-server 2.9.10 or ours. */
export interface ClusterMember {
  readonly kind: 'nats-server' | 'slipstream';
  readonly url: string;
  readonly clusterPort: number;
  /** Everything it logged so far. */
  output(): string;
  /** Kills it (nats-server: SIGKILL; ours: closed at once) and starts it again on the same ports. */
  restart(): Promise<void>;
  /** Kills it without a restart (nats-server: SIGKILL). */
  kill(): Promise<void>;
  /** Enters lame duck mode (nats-server: SIGUSR2). */
  lameDuck(): void;
  stop(): Promise<void>;
}

export const CLUSTER = 'C';

function routeUrls(ports: readonly number[], credentials = ''): string[] {
  return ports.map((port) => `nats-route://${credentials}127.0.0.1:${port}`);
}

/** nats-server 2.9.10 in cluster `C` on `clusterPort`, dialling `routes`; `extra` goes into its cluster block. */
export async function natsMember(
  clusterPort: number,
  routes: readonly number[],
  { extra = '', config = '', credentials = '', jetstream = false, name = CLUSTER } = {},
): Promise<ClusterMember> {
  const list = routeUrls(routes, credentials)
    .map((url) => `"${url}"`)
    .join(', ');
  let process: RunningNatsServer = await startNatsServer({
    config: `${config}\ncluster {\n ${name ? `name: ${name}` : ''}\n host: 127.0.0.1\n port: ${clusterPort}\n routes: [${list}]\n ${extra}\n}`,
    args: ['-DV'],
    jetstream,
  });
  return {
    kind: 'nats-server',
    url: process.url,
    clusterPort,
    output: () => process.output(),
    restart: async () => {
      await process.kill('SIGKILL');
      process = await process.restart();
    },
    kill: () => process.kill('SIGKILL'),
    lameDuck: () => void process.process.kill('SIGUSR2'),
    stop: () => process.stop(),
  };
}

/** Ours in this process, in cluster `C` on `clusterPort`, dialling `routes`. */
export async function ourMember(
  clusterPort: number,
  routes: readonly number[],
  cluster: Partial<ClusterOptions> = {},
  options: ServerOptions = {},
): Promise<ClusterMember & { server(): NatsServer }> {
  const logger = recordingLogger();
  const settings: ServerOptions = {
    host: '127.0.0.1',
    port: await freePort(),
    logger,
    debug: true,
    trace: true,
    cluster: {
      name: CLUSTER,
      host: '127.0.0.1',
      port: clusterPort,
      routes: routeUrls(routes),
      reconnectInterval: 100,
      ...cluster,
    },
    ...options,
  };
  let server: NatsServer | undefined = await startServer(settings);
  return {
    kind: 'slipstream',
    url: server.url,
    clusterPort,
    server: () => server!,
    output: () => logger.lines.join('\n'),
    restart: async () => {
      await server?.close();
      server = await startServer(settings);
    },
    kill: async () => {
      await server?.close();
      server = undefined;
    },
    lameDuck: () => void server?.lameDuck(),
    stop: async () => {
      await server?.close();
      server = undefined;
    },
  };
}

/** Free ports for `n` members' route ports. */
export async function clusterPorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}
