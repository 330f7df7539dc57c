import { connect, type Msg, type Subscription } from '@nats-io/transport-node';
import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import {
  type LeafNodeOptions,
  type Logger,
  type NatsServer,
  type ServerOptions,
  startServer,
} from '../src/index.js';
import type { OfficialConnection } from './official-connection.js';

/** A server of a leaf node test: nats-server 2.9.10 or ours. */
export interface LeafTestServer {
  readonly kind: 'nats-server' | 'slipstream';
  readonly url: string;
  /** The leaf node port, when it is a hub. */
  readonly leafPort: number | undefined;
  /** Everything it logged so far. */
  output(): string;
  /** Stops it and starts it again on the same ports, with the same configuration. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts nats-server 2.9.10 with `leafnodes { <block> }` and the rest of its `config`. */
export async function natsServerWith(
  block: string,
  leafPort?: number,
  config = '',
): Promise<LeafTestServer> {
  let process: RunningNatsServer = await startNatsServer({
    config: `${config}\nleafnodes { ${block} }`,
    args: ['-DV'],
  });
  return {
    kind: 'nats-server',
    url: process.url,
    leafPort,
    output: () => process.output(),
    restart: async () => {
      process = await process.restart();
    },
    stop: () => process.stop(),
  };
}

/**
 * nats-server as a hub, its leaf node port on a free port; `extra` goes into the leafnodes
 * block, `config` beside it.
 */
export async function natsServerHub(extra = '', config = ''): Promise<LeafTestServer> {
  const leafPort = await freePort();
  return natsServerWith(`host: 127.0.0.1\n port: ${leafPort}\n ${extra}`, leafPort, config);
}

/** nats-server as a leaf of the hub listening on `hubLeafPort` (a URL of `scheme`). */
export function natsServerLeaf(
  hubLeafPort: number,
  remote = '',
  scheme = 'nats-leaf',
): Promise<LeafTestServer> {
  return natsServerWith(
    `reconnect: 1, remotes = [ { url: "${scheme}://127.0.0.1:${hubLeafPort}" ${remote} } ]`,
  );
}

/** A logger that keeps every line, as a -DV server would print them. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => {
    lines.push(`[${level}] ${message}`);
  };
  return {
    lines,
    error: keep('ERR'),
    warn: keep('WRN'),
    info: keep('INF'),
    debug: keep('DBG'),
    trace: keep('TRC'),
  };
}

/** Starts ours in this process with `leafNodes`, on fixed ports so that a restart keeps them. */
export async function ourServer(
  leafNodes: LeafNodeOptions,
  options: ServerOptions = {},
): Promise<LeafTestServer & { server(): NatsServer }> {
  const logger = recordingLogger();
  const settings: ServerOptions = {
    host: '127.0.0.1',
    port: await freePort(),
    logger,
    debug: true,
    trace: true,
    leafNodes,
    ...options,
  };
  let server = await startServer(settings);
  return {
    kind: 'slipstream',
    url: server.url,
    leafPort: server.leafNodePort,
    server: () => server,
    output: () => logger.lines.join('\n'),
    restart: async () => {
      await server.close();
      server = await startServer(settings);
    },
    stop: () => server.close(),
  };
}

/** Our server as a hub, its leaf node port fixed on a free port. */
export async function ourHub(
  authorization?: LeafNodeOptions['authorization'],
  options: ServerOptions = {},
) {
  return ourServer(
    { host: '127.0.0.1', port: await freePort(), ...(authorization ? { authorization } : {}) },
    options,
  );
}

/** Our server as a leaf of the hub listening on `hubLeafPort`. */
export function ourLeaf(
  hubLeafPort: number,
  remote: Partial<NonNullable<LeafNodeOptions['remotes']>[number]> = {},
  options: ServerOptions = {},
) {
  return ourServer(
    {
      reconnectInterval: 100,
      remotes: [{ urls: [`nats-leaf://127.0.0.1:${hubLeafPort}`], ...remote }],
    },
    options,
  );
}

export function client(url: string, reconnect = false): Promise<OfficialConnection> {
  return connect({ servers: url, reconnect, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
}

/** Waits until `check` passes, retrying for up to `ms`. */
export async function eventually<T>(check: () => Promise<T> | T, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Publishes on `subject` from `publisher` every 50 ms until `sub` receives one (interest crosses
 * a leaf connection a moment after the SUB), and returns that message.
 */
export async function firstDelivery(
  publisher: OfficialConnection,
  subject: string,
  sub: Subscription,
  data = 'probe',
): Promise<Msg> {
  const got = sub[Symbol.asyncIterator]().next();
  const timer = setInterval(() => publisher.publish(subject, data), 50);
  let timeout: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      got,
      new Promise<never>((_, reject) => {
        timeout = setTimeout(() => reject(new Error(`nothing arrived on ${subject}`)), 10_000);
      }),
    ]);
    return result.value as Msg;
  } finally {
    clearInterval(timer);
    clearTimeout(timeout);
  }
}

/** Collects what `sub` receives. */
export function collect(sub: Subscription): Msg[] {
  const got: Msg[] = [];
  void (async () => {
    for await (const msg of sub) got.push(msg);
  })();
  return got;
}

/** Resolves after `ms`. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
