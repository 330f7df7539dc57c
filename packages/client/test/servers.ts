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
  /** Freezes the server so it stops answering (only for a server in its own process). */
  freeze?(): void;
  thaw?(): void;
  /** Puts the server in lame duck mode (nats-server: SIGUSR2). */
  lameDuck?(): void;
  stop(): Promise<void>;
}

/** Single-user authorization both servers understand. */
export type SimpleAuth = { user: string; pass: string } | { token: string };

export interface ServerKind {
  readonly name: string;
  start(auth?: SimpleAuth): Promise<SuiteServer>;
}

function natsServerAuthConfig(auth: SimpleAuth | undefined): string | undefined {
  if (!auth) return undefined;
  return 'token' in auth
    ? `authorization { token: "${auth.token}" }`
    : `authorization { user: "${auth.user}", password: "${auth.pass}" }`;
}

async function natsServer(auth?: SimpleAuth): Promise<SuiteServer> {
  let server: RunningNatsServer = await startNatsServer({
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
  { name: 'nats-server 2.9.10', start: natsServer },
  { name: '@slipstream/server', start: slipstreamServer },
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
