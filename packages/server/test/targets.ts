import { readFileSync } from 'node:fs';
import { freePort, startNatsServer, type TestOperator } from '@slipstream/test-servers';
import { afterEach } from 'vitest';
import {
  type AccountOptions,
  type AuthorizationOptions,
  NATS_COMPATIBLE_VERSION,
  silentLogger,
  startServer,
} from '../src/index.js';
import { natsAccountsConfig } from './nats-accounts-config.js';
import { natsAuthorizationConfig } from './nats-auth-config.js';
import { RawClient } from './raw-client.js';

/** Settings a test needs, in our option names; translated to a config file for nats-server. */
export interface TargetOptions {
  maxPayload?: number;
  maxPending?: number;
  maxControlLine?: number;
  maxConnections?: number;
  maxSubscriptions?: number;
  writeDeadline?: number;
  pingInterval?: number;
  pingMax?: number;
  authTimeout?: number;
  authorization?: AuthorizationOptions;
  accounts?: Record<string, AccountOptions>;
  systemAccount?: string;
  /** JetStream: in memory for ours, in a temporary store directory for nats-server. */
  jetstream?: boolean;
  noAuthUser?: string;
  lameDuckDuration?: number;
  lameDuckGracePeriod?: number;
  monitoring?: boolean;
  /** PEM files; ours reads them, nats-server gets a `tls {}` block. */
  tls?: {
    certFile: string;
    keyFile: string;
    caFile?: string;
    verify?: boolean;
    timeout?: number;
    verifyAndMap?: boolean;
    pinnedCerts?: string[];
    cipherSuites?: string[];
  };
  /**
   * Operator mode trusting this operator's accounts: a memory resolver preloaded with them, a
   * full (or `resolverType: 'cache'`) resolver reading `resolverDir` (see
   * TestOperator.writeAccounts), or a URL resolver fetching `<resolverUrl><account>`.
   */
  operator?: {
    operator: TestOperator;
    resolverDir?: string;
    resolverType?: 'full' | 'cache';
    resolverUrl?: string;
  };
  /** Monitoring over HTTPS with the `tls` certificate (nats-server `https_port`). */
  httpsMonitoring?: boolean;
  /** With `tls`: plain clients too, on the same port (nats-server `allow_non_tls`). */
  allowNonTls?: boolean;
  /** A WebSocket listener on a free port: plain, or `wss` with these PEM files. */
  websocket?: {
    /** `verify` asks for a client certificate signed by `caFile`. */
    tls?: { certFile: string; keyFile: string; caFile?: string; verify?: boolean };
    compression?: boolean;
    sameOrigin?: boolean;
    allowedOrigins?: string[];
    handshakeTimeout?: number;
  };
}

export interface RunningTarget {
  readonly port: number;
  /** The WebSocket listener's port, when `websocket` was asked for. */
  readonly wsPort?: number;
  readonly httpUrl: string | undefined;
  /** Starts lame duck mode (nats-server: SIGUSR2). */
  lameDuck(): void;
  stop(): Promise<void>;
}

export interface Target {
  readonly name: string;
  /** The version its INFO advertises (ours: the nats-server level it implements). */
  readonly version: string;
  start(options?: TargetOptions): Promise<RunningTarget>;
}

export const ours: Target = {
  name: 'slipstream',
  version: NATS_COMPATIBLE_VERSION,
  async start(options = {}) {
    const { monitoring, httpsMonitoring, tls, websocket, operator, ...rest } = options;
    const server = await startServer({
      ...rest,
      operator: operator && {
        jwts: [operator.operator.jwt],
        resolver:
          operator.resolverUrl !== undefined
            ? { type: 'url', url: operator.resolverUrl }
            : operator.resolverDir === undefined
              ? { type: 'memory', preload: operator.operator.preload() }
              : { type: operator.resolverType ?? 'full', dir: operator.resolverDir },
      },
      websocket: websocket && {
        ...websocket,
        port: 0,
        noTls: !websocket.tls,
        tls: websocket.tls && {
          cert: readFileSync(websocket.tls.certFile, 'utf8'),
          key: readFileSync(websocket.tls.keyFile, 'utf8'),
          ca: websocket.tls.caFile && readFileSync(websocket.tls.caFile, 'utf8'),
          verify: websocket.tls.verify,
        },
      },
      tls: tls && {
        ...tls,
        cert: readFileSync(tls.certFile, 'utf8'),
        key: readFileSync(tls.keyFile, 'utf8'),
        ca: tls.caFile && readFileSync(tls.caFile, 'utf8'),
      },
      host: '127.0.0.1',
      port: 0,
      httpPort: monitoring ? 0 : undefined,
      httpsPort: httpsMonitoring ? 0 : undefined,
      logger: silentLogger,
    });
    return {
      port: server.port,
      wsPort: server.websocketPort,
      httpUrl: server.httpUrl,
      lameDuck: () => void server.lameDuck(),
      stop: () => server.close(),
    };
  },
};

const ms = (value: number) => `"${value}ms"`;

export const natsServer: Target = {
  name: 'nats-server',
  version: '2.9.10',
  async start(options = {}) {
    const lines: string[] = [];
    const set = (key: string, value: string | number | boolean | undefined) => {
      if (value !== undefined) lines.push(`${key}: ${value}`);
    };
    set('max_payload', options.maxPayload);
    set('max_pending', options.maxPending);
    set('max_control_line', options.maxControlLine);
    set('max_connections', options.maxConnections);
    set('max_subscriptions', options.maxSubscriptions);
    set('ping_interval', options.pingInterval === undefined ? undefined : ms(options.pingInterval));
    set('ping_max', options.pingMax);
    set(
      'write_deadline',
      options.writeDeadline === undefined ? undefined : ms(options.writeDeadline),
    );
    set(
      'lame_duck_duration',
      options.lameDuckDuration === undefined ? undefined : ms(options.lameDuckDuration),
    );
    set(
      'lame_duck_grace_period',
      options.lameDuckGracePeriod === undefined ? undefined : ms(options.lameDuckGracePeriod),
    );
    if (options.authorization) {
      lines.push(
        ...natsAuthorizationConfig(options.authorization, options.authTimeout, options.noAuthUser),
      );
    } else if (options.noAuthUser !== undefined) {
      set('no_auth_user', JSON.stringify(options.noAuthUser));
    }
    if (options.accounts) lines.push(natsAccountsConfig(options.accounts));
    if (options.systemAccount) set('system_account', JSON.stringify(options.systemAccount));
    if (options.operator) {
      const { operator, resolverDir, resolverType, resolverUrl } = options.operator;
      lines.push(operator.config({ dir: resolverDir, type: resolverType, url: resolverUrl }));
    }
    if (options.tls) lines.push(natsTlsConfig(options.tls));
    set('allow_non_tls', options.allowNonTls);
    const httpsPort = options.httpsMonitoring ? await freePort() : undefined;
    set('https_port', httpsPort);
    const wsPort = options.websocket && (await freePort());
    if (options.websocket) lines.push(natsWebSocketConfig(options.websocket, wsPort!));
    const server = await startNatsServer({
      config: lines.join('\n'),
      monitoring: options.monitoring,
      jetstream: options.jetstream,
    });
    return {
      port: server.port,
      wsPort,
      httpUrl:
        httpsPort !== undefined
          ? `https://127.0.0.1:${httpsPort}`
          : server.httpPort === undefined
            ? undefined
            : `http://127.0.0.1:${server.httpPort}`,
      lameDuck: () => server.process.kill('SIGUSR2'),
      stop: () => server.stop(),
    };
  },
};

function natsTlsConfig(tls: NonNullable<TargetOptions['tls']>): string {
  const block = {
    cert_file: tls.certFile,
    key_file: tls.keyFile,
    ca_file: tls.caFile,
    // Left out unless given: nats-server reads the block's keys in random order, and a
    // `verify: false` read after `verify_and_map: true` would turn verification back off.
    verify: tls.verify,
    timeout: tls.timeout === undefined ? undefined : tls.timeout / 1000,
    verify_and_map: tls.verifyAndMap,
    pinned_certs: tls.pinnedCerts,
    cipher_suites: tls.cipherSuites,
  };
  return `tls: ${JSON.stringify(block)}`;
}

function natsWebSocketConfig(ws: NonNullable<TargetOptions['websocket']>, port: number): string {
  const block = {
    host: '127.0.0.1',
    port,
    no_tls: !ws.tls,
    tls: ws.tls && {
      cert_file: ws.tls.certFile,
      key_file: ws.tls.keyFile,
      ca_file: ws.tls.caFile,
      verify: ws.tls.verify,
    },
    compression: ws.compression,
    same_origin: ws.sameOrigin,
    allowed_origins: ws.allowedOrigins,
    handshake_timeout: ws.handshakeTimeout === undefined ? undefined : `${ws.handshakeTimeout}ms`,
  };
  return `websocket: ${JSON.stringify(block)}`;
}

/** The reasons /connz gives for the server's closed connections (it needs `monitoring`). */
export async function closeReasons(server: RunningTarget): Promise<string[]> {
  const closed = (await (await fetch(`${server.httpUrl}/connz?state=closed`)).json()) as {
    connections: { reason: string }[];
  };
  return closed.connections.map((c) => c.reason);
}

/** Both servers: a test written once runs against ours and the reference, so a difference fails. */
export const bothServers = [ours, natsServer];

/**
 * Servers and raw clients opened by each test of a describe block, all closed after the test, so
 * a failing assertion leaves nothing running. Call it inside the describe block.
 */
export function closedAfterEach(target: Target) {
  const servers: RunningTarget[] = [];
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  const track = <C extends RawClient>(client: C): C => {
    clients.push(client);
    return client;
  };
  return {
    track,
    async start(options?: TargetOptions): Promise<RunningTarget> {
      const server = await target.start(options);
      servers.push(server);
      return server;
    },
    /** Connects and waits for INFO. */
    connect: async (server: RunningTarget) => track(await RawClient.connectAndGreet(server.port)),
  };
}
