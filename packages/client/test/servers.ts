import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startServer } from '@slipstream/server';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { connect, type NatsConnection } from '../src/node.js';

/** A server the shared suite runs against; kill/restart keep its port. */
export interface SuiteServer {
  readonly url: string;
  /** `http://host:port` of the monitoring endpoints (/connz, /varz). */
  readonly monitorUrl: string;
  /** Stops serving without forgetting the port. */
  kill(): Promise<void>;
  /** Serves again on the same port. */
  restart(): Promise<void>;
  /** Puts the server in lame duck mode (nats-server: SIGUSR2). */
  lameDuck?(): void;
  stop(): Promise<void>;
}

/** A server in a process of its own, which a test can freeze so that it stops answering. */
export interface FreezableServer extends SuiteServer {
  /** SIGSTOP: the kernel still accepts connections, the server answers nothing. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
}

/** Single-user authorization both servers understand. */
export type SimpleAuth = { user: string; pass: string } | { token: string };

export interface ServerKind {
  readonly name: string;
  start(auth?: SimpleAuth): Promise<SuiteServer>;
  /** The same server as a child process (ours: the slipstream-server command), to freeze. */
  startInOwnProcess(): Promise<FreezableServer>;
}

function natsServerAuthConfig(auth: SimpleAuth | undefined): string | undefined {
  if (!auth) return undefined;
  return 'token' in auth
    ? `authorization { token: "${auth.token}" }`
    : `authorization { user: "${auth.user}", password: "${auth.pass}" }`;
}

// The slipstream-server command, as its package declares it. It reads nats-server's config
// file, so one launcher starts both servers.
export const slipstreamServerBin = (() => {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('slipstream-server/package.json');
  const { bin } = require(packageJson) as { bin: Record<string, string> };
  return join(dirname(packageJson), bin['slipstream-server']!);
})();

/** nats-server, or with `bin` another server that reads its config file, as a child process. */
async function processServer(bin?: string, auth?: SimpleAuth): Promise<FreezableServer> {
  let server: RunningNatsServer = await startNatsServer({
    bin,
    config: natsServerAuthConfig(auth),
    monitoring: true,
  });
  return {
    url: server.url,
    monitorUrl: `http://127.0.0.1:${server.httpPort}`,
    kill: () => server.kill(),
    restart: async () => {
      server = await server.restart();
    },
    freeze: () => server.process.kill('SIGSTOP'),
    thaw: () => server.process.kill('SIGCONT'),
    lameDuck: () => server.process.kill('SIGUSR2'),
    stop: () => server.stop(),
  };
}

async function slipstreamServer(auth?: SimpleAuth): Promise<SuiteServer> {
  const options = { host: '127.0.0.1', httpPort: 0, authorization: auth };
  let server = await startServer({ ...options, port: 0 });
  const url = server.url;
  const port = Number(new URL(url).port);
  let running = true;
  return {
    url,
    get monitorUrl() {
      return server.httpUrl!;
    },
    kill: async () => {
      running = false;
      await server.close();
    },
    restart: async () => {
      if (running) await server.close();
      server = await startServer({ ...options, port });
      running = true;
    },
    stop: async () => {
      if (running) await server.close();
      running = false;
    },
    lameDuck: () => void server.lameDuck(),
  };
}

/** Every server the client suite runs against: the real nats-server and ours. */
export const serverKinds: ServerKind[] = [
  {
    name: 'nats-server 2.9.10',
    start: (auth) => processServer(undefined, auth),
    startInOwnProcess: () => processServer(),
  },
  {
    name: '@slipstream/server',
    start: slipstreamServer,
    startInOwnProcess: () => processServer(slipstreamServerBin),
  },
];

/** A server and a client connected to it, shared by the tests of one suite. */
export interface ConnectedSuite {
  readonly server: SuiteServer;
  readonly nc: NatsConnection;
}

/** Starts a server of `kind` and connects to it before the suite's tests; closes both after. */
export function connectedSuite(kind: ServerKind): ConnectedSuite {
  const suite = {} as { server: SuiteServer; nc: NatsConnection };
  beforeAll(async () => {
    suite.server = await kind.start();
    suite.nc = await connect({ servers: suite.server.url });
  });
  afterAll(async () => {
    await suite.nc?.close();
    await suite.server?.stop();
  });
  return suite;
}

/** Bounded wait for a condition that other events make true. */
export async function waitFor(
  check: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
