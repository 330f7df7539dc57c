import { nuid } from '@slipstream/protocol';
import type { AccountOptions } from './accounts/account-options.js';
import type { MappingOptions } from './accounts/subject-mappings.js';
import { TrustedAccounts } from './accounts/trusted-accounts.js';
import type { AuthorizationOptions } from './auth/auth-options.js';
import type { OperatorOptions } from './auth/operator-options.js';
import { ServerError } from './errors.js';
import {
  type LeafNodeOptions,
  type ResolvedLeafNodeOptions,
  resolveLeafNodes,
} from './leafnode/leaf-options.js';
import type { Logger } from './logger.js';
import {
  type ClusterOptions,
  type ResolvedClusterOptions,
  resolveCluster,
} from './route/route-options.js';
import { PIN_PATTERN } from './tls/pinned-certs.js';
import type { ResolvedTlsOptions, TlsOptions } from './tls/tls-options.js';
import {
  type ResolvedWebSocketOptions,
  resolveWebSocket,
  type WebSocketOptions,
} from './websocket-options.js';

/**
 * Server settings. Names mirror nats-server's config keys in camelCase; durations are milliseconds
 * and sizes bytes. Every field is optional and defaults to nats-server's default. Validation of
 * user-written config (types, units, file/line errors) belongs to the app; startServer only rejects
 * values it cannot run with.
 */
export interface ServerOptions {
  /** Interface to listen on. Default `0.0.0.0`. */
  host?: string;
  /** Client port. Default 4222; `0` (or `-1`, as nats-server) picks a free port. */
  port?: number;
  /** Name advertised in INFO and /varz. Defaults to the server id. */
  serverName?: string;
  /** Largest PUB/HPUB payload (headers included). Default 1 MiB. */
  maxPayload?: number;
  /** Outbound bytes a connection may have pending before it is cut off as a slow consumer. Default 64 MiB. */
  maxPending?: number;
  /** Longest protocol line (arguments after the op name). Default 4096. */
  maxControlLine?: number;
  /** Most simultaneous client connections. Default 65536. */
  maxConnections?: number;
  /** Most subscriptions per connection; 0 = unlimited (default). */
  maxSubscriptions?: number;
  /** Milliseconds between server PINGs. Default 120000 (the first PING comes after at most 2 s). */
  pingInterval?: number;
  /** Unanswered PINGs tolerated before `-ERR 'Stale Connection'`. Default 2. */
  pingMax?: number;
  /** Milliseconds a blocked socket write may last before the connection is cut off. Default 10000. */
  writeDeadline?: number;
  /** Milliseconds a client has to send CONNECT when authorization is on. Default 2000, or the TLS timeout plus 1000 with TLS. */
  authTimeout?: number;
  /** TLS for client connections: INFO says `tls_required` and clients upgrade before CONNECT. */
  tls?: TlsOptions;
  /**
   * With `tls`: serve plain clients on the same port too (nats-server `allow_non_tls`). INFO then
   * says `tls_available`; a client that starts a TLS handshake gets TLS, any other is served plain.
   */
  allowNonTls?: boolean;
  /** A WebSocket listener besides the client port (nats-server `websocket {}`). */
  websocket?: WebSocketOptions;
  /** Leaf node connections: the port other servers join as leaves, and the hubs we join (nats-server `leafnodes {}`). */
  leafNodes?: LeafNodeOptions;
  /** Membership of a cluster: the route port other members connect to and the routes we dial (nats-server `cluster {}`). */
  cluster?: ClusterOptions;
  /** Monitoring interface. Default: same as `host`. */
  httpHost?: string;
  /** Monitoring port; monitoring is off unless set. `0` picks a free port. */
  httpPort?: number;
  /**
   * Monitoring over HTTPS on this port instead, with the `tls` certificate and key (nats-server
   * `https_port`; no client certificate is asked). Not together with `httpPort`.
   */
  httpsPort?: number;
  /**
   * Basic auth for the monitoring port (ours: nats-server's has none). When set, every request to
   * it, the endpoints and the dashboard, must carry this user and password (`pass`, plain text).
   */
  monitoringAuth?: { user: string; pass: string };
  /**
   * The dashboard at `/` of the monitoring port. It is read-only unless `actions` is true, which
   * lets it purge streams and delete consumers and KV keys (each after a confirmation; needs
   * `monitoringAuth`).
   */
  dashboard?: { actions?: boolean };
  /** Milliseconds over which lame duck mode closes clients. Default 120000. */
  lameDuckDuration?: number;
  /** Milliseconds lame duck mode waits before it starts closing clients. Default 10000. */
  lameDuckGracePeriod?: number;
  /** Client authentication and permissions: a `token`, a `user` with `pass`, or many `users`. */
  authorization?: AuthorizationOptions;
  /**
   * Accounts by name, as nats-server's `accounts {}` block: each has its own subject space, its
   * users, and the streams and services it exports to and imports from other accounts. Clients
   * of users outside them are in the global account `$G`.
   */
  accounts?: Record<string, AccountOptions>;
  /**
   * Where publishes of the global account's clients go instead, by source subject (nats-server's
   * top-level `mappings`); each account has its own in `accounts`.
   */
  mappings?: Record<string, MappingOptions>;
  /**
   * The account that receives the server's `$SYS` events and answers `$SYS.REQ.SERVER.*`
   * (nats-server's `system_account`): one of `accounts`, or `$SYS` (the default), which exists
   * without users unless configured.
   */
  systemAccount?: string;
  /**
   * The user (of `authorization.users` or of an account) a client that sends no credentials is
   * taken for.
   */
  noAuthUser?: string;
  /**
   * Operator mode (nats-server's `operator`, `resolver`, `resolver_preload`): users log in with
   * JWTs of the operator's accounts, which become the server's accounts (by public key), and the
   * operator's system account is the default `systemAccount`. Not with `authorization` or `accounts`.
   */
  operator?: OperatorOptions;
  /** Where log lines go. Default: nats-server-style lines on stderr. */
  logger?: Logger;
  /** Log debug lines (connection lifecycle). */
  debug?: boolean;
  /** Log every protocol frame in and out (slow: for troubleshooting only). */
  trace?: boolean;
  /** JetStream: `true` for the defaults (everything in memory), or where and how much to store. */
  jetstream?: boolean | JetStreamOptions;
}

/** JetStream settings, as nats-server's `jetstream { store_dir, max_memory_store, ... }`. */
export interface JetStreamOptions {
  /**
   * Where file streams live: one SQLite database per stream under `<storeDir>/jetstream`. Without
   * it JetStream runs in memory only (for tests): file streams are kept in memory as well.
   */
  storeDir?: string;
  /** Bytes all memory streams together may hold. Default: unlimited (-1). */
  maxMemory?: number;
  /** Bytes all file streams together may hold. Default: unlimited (-1). */
  maxFile?: number;
  /** The JetStream domain: the API also answers on `$JS.<domain>.API.>`. */
  domain?: string;
  /**
   * `'always'` (default): a PubAck leaves only once its message is synced to disk. A number of
   * milliseconds: sync that often instead (nats-server's lazy trade-off for an OS crash).
   */
  syncInterval?: 'always' | number;
  /**
   * Milliseconds an upload the `$OBJ` object store API assembles may wait for its next chunk
   * (and a reader of a get for its flow control answer); then its chunks are purged. Default
   * 30 s.
   */
  objectUploadTimeout?: number;
  /** Uploads the `$OBJ` API holds pending per account; more are refused. Default 64. */
  maxPendingObjectUploads?: number;
  /** Atomic batch publish limits, as nats-server 2.12's `jetstream { limits { batch {...} } }`. */
  atomicBatch?: Partial<AtomicBatchLimits>;
}

/** nats-server 2.12's limits on atomic batches (its defaults in parentheses). */
export interface AtomicBatchLimits {
  /** Batches open at once on one stream (50). */
  maxInflightPerStream: number;
  /** Batches open at once on the whole server (1000). */
  maxInflightTotal: number;
  /** Messages in one batch (1000). */
  maxMsgs: number;
  /** Milliseconds a batch may wait for its commit after its first message (10 s). */
  timeout: number;
}

/** Options with every default applied. */
export interface ResolvedOptions {
  host: string;
  port: number;
  serverName: string | undefined;
  maxPayload: number;
  maxPending: number;
  maxControlLine: number;
  maxConnections: number;
  maxSubscriptions: number;
  pingInterval: number;
  pingMax: number;
  writeDeadline: number;
  authTimeout: number;
  httpHost: string;
  httpPort: number | undefined;
  /** Whether the monitoring port (httpPort) serves HTTPS. */
  httpsMonitoring: boolean;
  monitoringAuth: { user: string; pass: string } | undefined;
  dashboard: { actions: boolean };
  lameDuckDuration: number;
  lameDuckGracePeriod: number;
  authorization: AuthorizationOptions | undefined;
  accounts: Record<string, AccountOptions> | undefined;
  mappings: Record<string, MappingOptions> | undefined;
  systemAccount: string;
  noAuthUser: string | undefined;
  /** The accounts operator mode trusts; `accounts` is derived from them. */
  operator: TrustedAccounts | undefined;
  tls: ResolvedTlsOptions | undefined;
  allowNonTls: boolean;
  websocket: ResolvedWebSocketOptions | undefined;
  leafNodes: ResolvedLeafNodeOptions | undefined;
  cluster: ResolvedClusterOptions | undefined;
  debug: boolean;
  trace: boolean;
  jetstream: ResolvedJetStreamOptions | undefined;
}

export interface ResolvedJetStreamOptions {
  storeDir: string | undefined;
  maxMemory: number;
  maxFile: number;
  domain: string | undefined;
  syncInterval: 'always' | number;
  /** The `$OBJ` object store API's limits; its largest chunk is the server's max payload. */
  objects: { uploadTimeout: number; maxPendingUploads: number; maxChunk: number };
  atomicBatch: AtomicBatchLimits;
}

/** The system account nats-server creates when none is configured. */
export const SYSTEM_ACCOUNT = '$SYS';

/** nats-server's defaults (server/const.go and opts.go, 2.9.10). */
export const DEFAULTS = {
  host: '0.0.0.0',
  port: 4222,
  maxPayload: 1024 * 1024,
  maxPending: 64 * 1024 * 1024,
  maxControlLine: 4096,
  maxConnections: 64 * 1024,
  maxSubscriptions: 0,
  pingInterval: 2 * 60_000,
  pingMax: 2,
  writeDeadline: 10_000,
  authTimeout: 2_000,
  lameDuckDuration: 2 * 60_000,
  lameDuckGracePeriod: 10_000,
  tlsTimeout: 2_000,
} as const;

type NumericOption = Exclude<keyof typeof DEFAULTS & keyof ServerOptions, 'host' | 'port'>;

export function resolveOptions(options: ServerOptions): ResolvedOptions {
  // As in nats-server (setBaselineOptions), 0 means "the default" for every limit and duration.
  const num = (key: NumericOption, min: number, fallback: number = DEFAULTS[key]): number => {
    const given = options[key];
    const value = given === undefined || given === 0 ? fallback : given;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw new ServerError('INVALID_OPTION', `${key} must be a number >= ${min}, got ${value}`);
    }
    return value;
  };
  const port = options.port ?? DEFAULTS.port;
  if (!Number.isInteger(port) || port < -1 || port > 65535) {
    throw new ServerError('INVALID_OPTION', `port must be a port number, got ${port}`);
  }
  const auth = options.authorization;
  const accountUsers = Object.values(options.accounts ?? {}).some((a) => a.users?.length);
  if (options.noAuthUser !== undefined && !auth?.users && !accountUsers) {
    throw new ServerError('INVALID_OPTION', 'noAuthUser needs authorization.users');
  }
  const operator = options.operator && new TrustedAccounts(options.operator);
  if (operator && (auth || options.accounts)) {
    throw new ServerError('INVALID_OPTION', 'operator mode takes no authorization or accounts');
  }
  const systemAccount = options.systemAccount || operator?.systemAccount || SYSTEM_ACCOUNT;
  const httpPort = monitoringPort(options);
  const maxPayload = num('maxPayload', 1);
  const maxPending = num('maxPending', 1);
  if (maxPayload > maxPending) {
    throw new ServerError(
      'INVALID_OPTION',
      `maxPayload (${maxPayload}) cannot be higher than maxPending (${maxPending})`,
    );
  }
  const tls = resolveTls(options.tls);
  if (options.httpsPort !== undefined && !tls) {
    throw new ServerError('INVALID_OPTION', 'httpsPort needs tls (its cert and key)');
  }
  const host = options.host ?? DEFAULTS.host;
  return {
    host,
    port: port === -1 ? 0 : port,
    serverName: options.serverName || undefined,
    maxPayload,
    maxPending,
    maxControlLine: num('maxControlLine', 1),
    maxConnections: num('maxConnections', 1),
    maxSubscriptions: num('maxSubscriptions', 0),
    pingInterval: num('pingInterval', 1),
    pingMax: num('pingMax', 1),
    writeDeadline: num('writeDeadline', 1),
    // nats-server gives TLS clients the handshake time plus a second to authenticate.
    authTimeout: num('authTimeout', 1, tls ? tls.timeout + 1_000 : DEFAULTS.authTimeout),
    httpHost: options.httpHost ?? host,
    httpPort: httpPort === -1 ? 0 : httpPort,
    httpsMonitoring: options.httpsPort !== undefined,
    monitoringAuth: resolveMonitoringAuth(options.monitoringAuth),
    dashboard: resolveDashboard(options),
    lameDuckDuration: num('lameDuckDuration', 0),
    lameDuckGracePeriod: num('lameDuckGracePeriod', 0),
    authorization: auth ? { ...auth } : undefined,
    accounts: operator ? operator.accountOptions(systemAccount) : options.accounts,
    mappings: options.mappings,
    systemAccount,
    noAuthUser: options.noAuthUser,
    operator,
    tls,
    allowNonTls: options.allowNonTls ?? false,
    websocket: resolveWebSocket(options.websocket, host),
    leafNodes: resolveLeafNodes(
      options.leafNodes,
      (name) =>
        name === '$G' ||
        name === systemAccount ||
        (operator ? true : Object.hasOwn(options.accounts ?? {}, name)),
    ),
    cluster: clusterWithoutJetStream(options),
    debug: options.debug ?? false,
    trace: options.trace ?? false,
    jetstream: resolveJetStream(options.jetstream, maxPayload),
  };
}

/**
 * The cluster, which this server joins only with JetStream off: it does not replicate streams or
 * take part in JetStream's meta group, so a member running JetStream would keep streams the rest
 * of the cluster knows nothing of.
 */
function clusterWithoutJetStream(options: ServerOptions): ResolvedClusterOptions | undefined {
  if (options.cluster && options.jetstream) {
    throw new ServerError(
      'INVALID_OPTION',
      'JetStream cannot be enabled on a cluster member: this server does not cluster JetStream. ' +
        "Turn JetStream off on this member (its clients reach the JetStream of the cluster's " +
        'nats-server members through the routes), or run it without a cluster',
    );
  }
  return resolveCluster(options.cluster, () => nuid.next());
}

/** The monitoring port, HTTP or HTTPS: nats-server refuses both at once. */
function monitoringPort(options: ServerOptions): number | undefined {
  const { httpPort, httpsPort } = options;
  if (httpPort !== undefined && httpsPort !== undefined) {
    throw new ServerError(
      'INVALID_OPTION',
      `cannot have both an HTTP (${httpPort}) and an HTTPS (${httpsPort}) monitoring port`,
    );
  }
  const port = httpPort ?? httpsPort;
  if (port !== undefined && (!Number.isInteger(port) || port < -1 || port > 65535)) {
    const name = httpPort === undefined ? 'httpsPort' : 'httpPort';
    throw new ServerError('INVALID_OPTION', `${name} must be a port number, got ${port}`);
  }
  return port;
}

function resolveMonitoringAuth(auth: ServerOptions['monitoringAuth']) {
  if (auth === undefined) return undefined;
  if (!auth.user || !auth.pass || auth.user.includes(':')) {
    throw new ServerError('INVALID_OPTION', 'monitoringAuth needs a user (without ":") and a pass');
  }
  return { user: auth.user, pass: auth.pass };
}

function resolveDashboard(options: ServerOptions) {
  const actions = options.dashboard?.actions ?? false;
  if (actions && !options.monitoringAuth) {
    throw new ServerError(
      'INVALID_OPTION',
      'dashboard.actions needs monitoringAuth: actions that change state are offered only behind basic auth',
    );
  }
  return { actions };
}

function resolveTls(tls: TlsOptions | undefined): ResolvedTlsOptions | undefined {
  if (!tls) return undefined;
  const invalid = (message: string) => new ServerError('INVALID_OPTION', `tls ${message}`);
  if (!tls.cert || !tls.key) throw invalid('needs a cert and a key');
  const verifyAndMap = tls.verifyAndMap ?? false;
  const verify = (tls.verify ?? false) || verifyAndMap;
  if (verify && !tls.ca) throw invalid('verify needs a ca to check client certificates');
  const timeout = tls.timeout || DEFAULTS.tlsTimeout;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw invalid(`timeout must be a positive number, got ${timeout}`);
  }
  const pins = tls.pinnedCerts?.map((pin) => pin.toLowerCase());
  const badPin = pins?.find((pin) => !PIN_PATTERN.test(pin));
  if (badPin !== undefined) {
    throw invalid(`pinnedCerts: ${badPin} is not a hex SHA-256 of a DER SubjectPublicKeyInfo`);
  }
  if (tls.cipherSuites?.length === 0) throw invalid('cipherSuites cannot be empty');
  if (tls.minVersion !== undefined && tls.minVersion !== '1.2' && tls.minVersion !== '1.3') {
    throw invalid(`minVersion must be '1.2' or '1.3', got ${String(tls.minVersion)}`);
  }
  const fallback = tls.handshakeFirstFallback ?? 0;
  if (!Number.isFinite(fallback) || fallback < 0) {
    throw invalid(`handshakeFirstFallback must be milliseconds >= 0, got ${fallback}`);
  }
  if (fallback > 0 && !tls.handshakeFirst)
    throw invalid('handshakeFirstFallback needs handshakeFirst');
  return {
    ...tls,
    timeout,
    verify,
    verifyAndMap,
    // As nats-server: an empty list pins nothing, it does not shut everyone out.
    pinnedCerts: pins && pins.length > 0 ? new Set(pins) : undefined,
    handshakeFirst: tls.handshakeFirst ?? false,
    handshakeFirstFallback: fallback,
  };
}

function resolveJetStream(
  given: boolean | JetStreamOptions | undefined,
  maxPayload: number,
): ResolvedJetStreamOptions | undefined {
  if (!given) return undefined;
  const options = given === true ? {} : given;
  const limit = (key: 'maxMemory' | 'maxFile') => {
    const value = options[key] ?? -1;
    if (!Number.isInteger(value) || value < -1) {
      throw new ServerError('INVALID_OPTION', `jetstream ${key} must be bytes or -1, got ${value}`);
    }
    return value === 0 ? -1 : value;
  };
  const sync = options.syncInterval ?? 'always';
  if (sync !== 'always' && (!Number.isFinite(sync) || sync <= 0)) {
    throw new ServerError(
      'INVALID_OPTION',
      `jetstream syncInterval must be 'always' or milliseconds, got ${sync}`,
    );
  }
  const domain = options.domain || undefined;
  if (domain !== undefined && !/^[^\s.*>]+$/.test(domain)) {
    throw new ServerError('INVALID_OPTION', `jetstream domain must be one token, got '${domain}'`);
  }
  const positive = (key: string, given: number | undefined, fallback: number) => {
    const value = given ?? fallback;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ServerError('INVALID_OPTION', `jetstream ${key} must be a positive integer`);
    }
    return value;
  };
  const batch = options.atomicBatch ?? {};
  return {
    storeDir: options.storeDir || undefined,
    maxMemory: limit('maxMemory'),
    maxFile: limit('maxFile'),
    domain,
    syncInterval: sync,
    objects: {
      uploadTimeout: positive('objectUploadTimeout', options.objectUploadTimeout, 30_000),
      maxPendingUploads: positive('maxPendingObjectUploads', options.maxPendingObjectUploads, 64),
      maxChunk: maxPayload,
    },
    atomicBatch: {
      maxInflightPerStream: positive(
        'atomicBatch.maxInflightPerStream',
        batch.maxInflightPerStream,
        50,
      ),
      maxInflightTotal: positive('atomicBatch.maxInflightTotal', batch.maxInflightTotal, 1000),
      maxMsgs: positive('atomicBatch.maxMsgs', batch.maxMsgs, 1000),
      timeout: positive('atomicBatch.timeout', batch.timeout, 10_000),
    },
  };
}
