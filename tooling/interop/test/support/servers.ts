import { type ServerOptions, silentLogger, startServer } from '@slipstream/server';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';

export interface TestServer {
  readonly url: string;
  /** Puts the server in lame duck mode (nats-server: `--signal ldm`, i.e. SIGUSR2). */
  lameDuck(): void;
  /** Stops the server and starts it again on the same port. */
  restart(): Promise<TestServer>;
  stop(): Promise<void>;
}

export interface ServerSettings {
  maxPayload?: number;
  authorization?: { user: string; pass: string } | { token: string };
  lameDuckGracePeriod?: number;
}

/** A server a test can run against: ours in-process, or the reference nats-server 2.9.10. */
export interface ServerKind {
  readonly name: string;
  start(settings?: ServerSettings): Promise<TestServer>;
}

export const slipstream: ServerKind = {
  name: 'slipstream',
  start: (settings = {}) =>
    startSlipstream({ host: '127.0.0.1', port: 0, ...settings, logger: silentLogger }),
};

async function startSlipstream(options: ServerOptions): Promise<TestServer> {
  const server = await startServer(options);
  return {
    url: server.url,
    lameDuck: () => void server.lameDuck(),
    restart: async () => {
      await server.close();
      return startSlipstream({ ...options, port: server.port });
    },
    stop: () => server.close(),
  };
}

export const natsServer: ServerKind = {
  name: 'nats-server 2.9.10',
  start: async (settings = {}) =>
    wrapNatsServer(await startNatsServer({ config: natsConfig(settings) })),
};

function wrapNatsServer(server: RunningNatsServer): TestServer {
  return {
    url: server.url,
    lameDuck: () => void server.process.kill('SIGUSR2'),
    restart: async () => wrapNatsServer(await server.restart()),
    stop: () => server.stop(),
  };
}

function natsConfig(settings: ServerSettings): string {
  const lines: string[] = [];
  if (settings.maxPayload !== undefined) lines.push(`max_payload: ${settings.maxPayload}`);
  if (settings.lameDuckGracePeriod !== undefined) {
    lines.push(`lame_duck_grace_period: "${settings.lameDuckGracePeriod}ms"`);
  }
  const auth = settings.authorization;
  if (auth && 'token' in auth) lines.push(`authorization { token: "${auth.token}" }`);
  else if (auth) lines.push(`authorization { user: "${auth.user}", password: "${auth.pass}" }`);
  return lines.join('\n');
}

/** Expectations that hold for nats-server too run against both, so a difference shows up as a failure. */
export const bothServers: readonly ServerKind[] = [slipstream, natsServer];
