import * as z from 'zod';
import { ConfigError, formatLocation, type SourcePosition } from './conf/errors.js';
import { type ConfMap, type ParsedConfig, parseConfigFile, pathKey } from './conf/parser.js';
import { parseDuration, parseSize } from './conf/units.js';
import { accountsBlock } from './config-accounts.js';
import { authorizationBlock, toAuthorization } from './config-authorization.js';
import { clusterBlock, toCluster } from './config-cluster.js';
import { leafnodesBlock, toLeafNodes } from './config-leafnodes.js';
import { mappingsBlock } from './config-mappings.js';
import {
  operatorKey,
  operatorOptions,
  resolverKey,
  resolverPreloadKey,
} from './config-operator.js';
import { dropUndefined } from './drop-undefined.js';
import type { Settings } from './settings.js';
import { refusedKeys, refusingToStart, warnedKeys } from './unsupported.js';

/** A loaded config file: the settings it makes and what it asked for that this server ignores. */
export interface LoadedConfig {
  readonly settings: Settings;
  readonly warnings: readonly string[];
}

const stringLike = z.union([z.string(), z.number().transform(String)]);
const port = z.number().int().min(-1).max(65535);
const count = z.number().int().nonnegative();
/** A field whose value may be written in several forms; `read` returns undefined for a bad one. */
function flexible<T>(expected: string, read: (value: unknown) => T | undefined) {
  return z.unknown().transform((value, ctx) => {
    const result = read(value);
    if (result === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${expected}, got ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }
    return result;
  });
}

const size = flexible('a size like 1048576, 1MB or 64K', (value) => {
  const bytes = typeof value === 'string' ? parseSize(value) : value;
  return typeof bytes === 'number' && Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : undefined;
});
/** A bare number means seconds (as in nats-server); a string is a Go duration. Result in ms. */
const duration = flexible(
  'a duration like "2m", "10s" or "500ms" (or a number of seconds)',
  (value) => {
    const ms =
      typeof value === 'string'
        ? parseDuration(value)
        : typeof value === 'number'
          ? value * 1000
          : undefined;
    return ms !== undefined && ms >= 0 ? ms : undefined;
  },
);
/** `host:port`, `:port` or a bare port, as nats-server accepts for `listen` and `http`. */
const hostPort = flexible('"host:port" or a port number', (value) => {
  const [host, portText] =
    typeof value === 'number'
      ? [undefined, String(value)]
      : (/^(.*):(-?\d+)$/.exec(String(value))?.slice(1) ?? []);
  const p = Number(portText);
  if (portText === undefined || !Number.isInteger(p) || p < -1 || p > 65535) return undefined;
  return { host: host || undefined, port: p };
});

const jetstreamBlock = z.looseObject({
  enabled: z.boolean().optional(),
  store_dir: z.string().optional(),
  store: z.string().optional(),
  max_mem: size.optional(),
  max_memory_store: size.optional(),
  max_file: size.optional(),
  max_file_store: size.optional(),
  domain: z.string().optional(),
  sync_interval: z.union([z.literal('always'), duration]).optional(),
  // Ours: the $OBJ object store API's limits.
  object_upload_timeout: duration.optional(),
  max_pending_object_uploads: z.number().int().positive().optional(),
  // Of nats-server's limits only 2.12's atomic batch ones are read.
  limits: z
    .looseObject({
      batch: z
        .object({
          max_inflight_per_stream: z.number().int().positive().optional(),
          max_inflight_total: z.number().int().positive().optional(),
          max_msgs: z.number().int().positive().optional(),
          timeout: duration.optional(),
        })
        .optional(),
    })
    .optional(),
});
const jetstream = z.union([
  z.boolean().transform((enabled) => ({ enabled })),
  z.enum(['enabled', 'disabled']).transform((word) => ({ enabled: word === 'enabled' })),
  jetstreamBlock,
]);

/**
 * nats-server 2.10.4+'s `handshake_first`: true/false ("on"/"off"), or "auto" (a 50 ms fallback)
 * or a duration (that fallback), after which a client that has not started TLS gets INFO first.
 */
const handshakeFirst = flexible(
  'true, false, "auto" or a fallback duration like "300ms"',
  (value): { first: boolean; fallback?: number } | undefined => {
    if (typeof value === 'boolean') return { first: value };
    if (typeof value !== 'string') return undefined;
    const word = value.toLowerCase();
    if (word === 'true' || word === 'on') return { first: true };
    if (word === 'false' || word === 'off') return { first: false };
    if (word === 'auto' || word === 'auto_fallback') return { first: true, fallback: 50 };
    const fallback = parseDuration(value);
    return fallback === undefined ? undefined : { first: true, fallback };
  },
);

const tlsBlock = z.looseObject({
  cert_file: z.string().optional(),
  key_file: z.string().optional(),
  ca_file: z.string().optional(),
  verify: z.boolean().optional(),
  timeout: duration.optional(),
  verify_and_map: z.boolean().optional(),
  pinned_certs: z.array(z.string()).optional(),
  cipher_suites: z.array(z.string()).optional(),
  curve_preferences: z.array(z.string()).optional(),
  /**
   * Accepted and without effect, as in nats-server: Go's InsecureSkipVerify only concerns the
   * certificates a TLS client checks, and these blocks configure listeners (client certificates
   * are still checked under `verify`).
   */
  insecure: z.boolean().optional(),
  /** nats-server 2.10.21+. */
  min_version: flexible('"1.2" or "1.3"', (value) =>
    String(value) === '1.2' || String(value) === '1.3'
      ? (String(value) as '1.2' | '1.3')
      : undefined,
  ).optional(),
  handshake_first: handshakeFirst.optional(),
  first: handshakeFirst.optional(),
  immediate: handshakeFirst.optional(),
});
/** The keys of a websocket's tls block this server honours: its listener has no more. */
const websocketTlsKeys = [
  'cert_file',
  'key_file',
  'ca_file',
  'verify',
  'timeout',
  'curve_preferences',
  'insecure',
];

const websocketBlock = z.looseObject({
  host: z.string().optional(),
  port: port.optional(),
  listen: hostPort.optional(),
  no_tls: z.boolean().optional(),
  tls: tlsBlock.optional(),
  compression: z.boolean().optional(),
  same_origin: z.boolean().optional(),
  allowed_origins: z
    .union([z.string().transform((origin) => [origin]), z.array(z.string())])
    .optional(),
  handshake_timeout: duration.optional(),
});

/** Ours (nats-server has no such block): basic auth for every request to the monitoring port. */
const monitoringAuthBlock = z.strictObject({ user: stringLike, password: stringLike });

/** Ours: the dashboard at `/` of the monitoring port; `actions` lets it purge and delete. */
const dashboardBlock = z.strictObject({ actions: z.boolean().optional() });

/** The keys this server honours; each is optional, unknown keys are handled before this runs. */
const configSchema = z.object({
  port: port.optional(),
  host: z.string().optional(),
  net: z.string().optional(),
  listen: hostPort.optional(),
  server_name: stringLike.optional(),
  http: hostPort.optional(),
  http_port: port.optional(),
  https: hostPort.optional(),
  https_port: port.optional(),
  monitor_port: port.optional(),
  monitoring_auth: monitoringAuthBlock.optional(),
  dashboard: dashboardBlock.optional(),
  max_payload: size.optional(),
  max_pending: size.optional(),
  max_control_line: size.optional(),
  max_connections: count.optional(),
  max_conn: count.optional(),
  max_subscriptions: count.optional(),
  max_subs: count.optional(),
  ping_interval: duration.optional(),
  ping_max: count.optional(),
  write_deadline: duration.optional(),
  lame_duck_duration: duration.optional(),
  lame_duck_grace_period: duration.optional(),
  authorization: authorizationBlock.optional(),
  accounts: accountsBlock.optional(),
  mappings: mappingsBlock.optional(),
  maps: mappingsBlock.optional(),
  system_account: z.string().optional(),
  operator: operatorKey.optional(),
  resolver: resolverKey.optional(),
  resolver_preload: resolverPreloadKey.optional(),
  no_auth_user: stringLike.optional(),
  jetstream: jetstream.optional(),
  tls: tlsBlock.optional(),
  allow_non_tls: z.boolean().optional(),
  websocket: websocketBlock.optional(),
  leafnodes: leafnodesBlock.optional(),
  leaf: leafnodesBlock.optional(),
  cluster: clusterBlock.optional(),
  debug: z.boolean().optional(),
  trace: z.boolean().optional(),
  /** Accepted for compatibility; timestamps are always on. */
  logtime: z.boolean().optional(),
  log_file: z.string().optional(),
  pid_file: z.string().optional(),
  ports_file_dir: z.string().optional(),
});

type ConfigShape = z.output<typeof configSchema>;
const supportedKeys = new Set(Object.keys(configSchema.shape));
// The blocks' schemas keep unknown keys (to point at them below), so their shapes list what is honoured.
const supportedAuthorizationKeys = new Set(Object.keys(authorizationBlock.shape));
const supportedTlsKeys = new Set(Object.keys(tlsBlock.shape));
const supportedWebsocketTlsKeys = new Set(websocketTlsKeys);
const supportedWebsocketKeys = new Set(Object.keys(websocketBlock.shape));

/** Reads, parses and validates a config file; every problem names its file, line and key. */
export function loadConfigFile(
  file: string,
  env?: Record<string, string | undefined>,
): LoadedConfig {
  return validateConfig(parseConfigFile(file, { env }));
}

/** Validates parsed configuration and turns it into settings plus warnings. */
export function validateConfig(parsed: ParsedConfig): LoadedConfig {
  const warnings: string[] = [];
  const known: ConfMap = {};
  for (const [key, value] of Object.entries(parsed.data)) {
    const at = parsed.positions.get(key);
    const refusal = refusedKeys[key];
    if (refusal) throw new ConfigError('CONFIG_INVALID', `${refusal}; ${refusingToStart}`, at, key);
    if (warnedKeys[key]) warnings.push(describe(at, key, warnedKeys[key]));
    else if (supportedKeys.has(key)) known[key] = value;
    else if (!parsed.usedAsVariable.has(key)) {
      throw new ConfigError('CONFIG_INVALID', 'unknown field', at, key);
    }
  }
  const result = configSchema.safeParse(known);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = pathKey(issue.path);
    throw new ConfigError('CONFIG_INVALID', issue.message, positionOf(parsed, issue.path), key);
  }
  const config = result.data;
  // Fail closed: ignoring users, permissions, pinned certificates or cipher choices would let in
  // clients (or weaker connections) that the file meant to keep out.
  refuseUnsupported(
    parsed,
    'authorization',
    config.authorization,
    supportedAuthorizationKeys,
    'user/password, token, users, default_permissions and timeout',
  );
  refuseUnsupported(
    parsed,
    'tls',
    config.tls,
    supportedTlsKeys,
    'cert_file, key_file, ca_file, verify, timeout, verify_and_map, pinned_certs, cipher_suites, curve_preferences, insecure, min_version and handshake_first',
  );
  // The websocket block's own authorization (no_auth_user, users, jwt_cookie …) is not
  // implemented: refused, not ignored, for a browser would otherwise get in without it.
  refuseUnsupported(
    parsed,
    'websocket',
    config.websocket,
    supportedWebsocketKeys,
    'host, port, listen, no_tls, tls, compression, same_origin, allowed_origins and handshake_timeout',
  );
  refuseUnsupported(
    parsed,
    'websocket.tls',
    config.websocket?.tls,
    supportedWebsocketTlsKeys,
    'cert_file, key_file, ca_file, verify, timeout, curve_preferences and insecure',
  );
  const operator = operatorOptions(config.operator, config.resolver, config.resolver_preload);
  if (typeof operator === 'string') {
    const key = config.operator ? 'operator' : 'resolver';
    throw new ConfigError('CONFIG_INVALID', operator, parsed.positions.get(key), key);
  }
  return { settings: { ...toSettings(config), ...(operator ? { operator } : {}) }, warnings };
}

function refuseUnsupported(
  parsed: ParsedConfig,
  block: string,
  values: object | undefined,
  supported: ReadonlySet<string>,
  supportedText: string,
): void {
  for (const key of Object.keys(values ?? {})) {
    const path = `${block}.${key}`;
    if (!supported.has(key) && !parsed.usedAsVariable.has(path)) {
      throw new ConfigError(
        'CONFIG_INVALID',
        `not supported yet (only ${supportedText} are); refusing to start with weaker ${block} than configured`,
        parsed.positions.get(path),
        path,
      );
    }
  }
}

function toSettings(c: ConfigShape): Settings {
  const settings: Settings = {
    host: c.listen?.host ?? c.host ?? c.net,
    port: c.listen?.port ?? c.port,
    serverName: c.server_name,
    httpHost: c.http?.host ?? c.https?.host,
    httpPort: c.http?.port ?? c.http_port ?? c.monitor_port,
    httpsPort: c.https?.port ?? c.https_port,
    monitoringAuth: c.monitoring_auth && {
      user: c.monitoring_auth.user,
      pass: c.monitoring_auth.password,
    },
    dashboard: c.dashboard,
    maxPayload: c.max_payload,
    maxPending: c.max_pending,
    maxControlLine: c.max_control_line,
    maxConnections: c.max_connections ?? c.max_conn,
    maxSubscriptions: c.max_subscriptions ?? c.max_subs,
    pingInterval: c.ping_interval,
    pingMax: c.ping_max,
    writeDeadline: c.write_deadline,
    lameDuckDuration: c.lame_duck_duration,
    lameDuckGracePeriod: c.lame_duck_grace_period,
    debug: c.debug,
    trace: c.trace,
    logFile: c.log_file,
    pidFile: c.pid_file,
    portsFileDir: c.ports_file_dir,
  };
  if (c.authorization) {
    settings.authorization = toAuthorization(c.authorization);
    if (c.authorization.timeout !== undefined)
      settings.authTimeout = c.authorization.timeout * 1000;
  }
  settings.accounts = c.accounts;
  settings.mappings = c.mappings ?? c.maps;
  settings.systemAccount = c.system_account;
  settings.noAuthUser = c.no_auth_user;
  settings.allowNonTls = c.allow_non_tls;
  if (c.websocket) {
    const ws = c.websocket;
    settings.websocket = dropUndefined({
      host: ws.listen?.host ?? ws.host,
      port: ws.listen?.port ?? ws.port,
      noTls: ws.no_tls,
      tls: ws.tls && tlsSettings(ws.tls),
      compression: ws.compression,
      sameOrigin: ws.same_origin,
      allowedOrigins: ws.allowed_origins,
      handshakeTimeout: ws.handshake_timeout,
    });
  }
  const leafnodes = c.leafnodes ?? c.leaf;
  if (leafnodes) settings.leafNodes = toLeafNodes(leafnodes);
  if (c.cluster) settings.cluster = toCluster(c.cluster);
  if (c.jetstream) {
    const js = c.jetstream as z.output<typeof jetstreamBlock>;
    settings.jetstream = dropUndefined({
      enabled: js.enabled ?? true,
      storeDir: js.store_dir ?? js.store,
      maxMemory: js.max_mem ?? js.max_memory_store,
      maxFile: js.max_file ?? js.max_file_store,
      domain: js.domain,
      syncInterval: js.sync_interval,
      objectUploadTimeout: js.object_upload_timeout,
      maxPendingObjectUploads: js.max_pending_object_uploads,
      atomicBatch: atomicBatchSettings(js.limits?.batch),
    });
  }
  if (c.tls) settings.tls = tlsSettings(c.tls);
  return dropUndefined(settings);
}

/** nats-server 2.12's `jetstream { limits { batch {...} } }`. */
function atomicBatchSettings(
  batch: NonNullable<z.output<typeof jetstreamBlock>['limits']>['batch'],
): NonNullable<Settings['jetstream']>['atomicBatch'] {
  if (!batch) return undefined;
  return dropUndefined({
    maxInflightPerStream: batch.max_inflight_per_stream,
    maxInflightTotal: batch.max_inflight_total,
    maxMsgs: batch.max_msgs,
    timeout: batch.timeout,
  });
}

function tlsSettings(tls: z.output<typeof tlsBlock>): NonNullable<Settings['tls']> {
  const first = tls.handshake_first ?? tls.first ?? tls.immediate;
  return dropUndefined({
    enabled: true,
    cert: tls.cert_file,
    key: tls.key_file,
    ca: tls.ca_file,
    verify: tls.verify,
    timeout: tls.timeout,
    verifyAndMap: tls.verify_and_map,
    pinnedCerts: tls.pinned_certs,
    cipherSuites: tls.cipher_suites,
    curvePreferences: tls.curve_preferences,
    minVersion: tls.min_version,
    handshakeFirst: first?.first,
    handshakeFirstFallback: first?.fallback,
  });
}

function positionOf(
  parsed: ParsedConfig,
  path: readonly PropertyKey[],
): SourcePosition | undefined {
  for (let n = path.length; n > 0; n--) {
    const at = parsed.positions.get(pathKey(path.slice(0, n)));
    if (at) return at;
  }
  return undefined;
}

/** A warning worded like a ConfigError: `file:line: key: message`. */
function describe(at: SourcePosition | undefined, key: string, message: string): string {
  return formatLocation(at, key) + message;
}
