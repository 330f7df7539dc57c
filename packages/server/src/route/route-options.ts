import { ServerError } from '../errors.js';
import type { ContextTlsOptions } from '../tls/secure-context.js';

/**
 * TLS on routes, both ways as nats-server's cluster `tls {}`: the route port handshakes first
 * (before any INFO) and requires a certificate signed by `ca`; a route we dial shows `cert` and
 * checks the other member's against `ca` (and its name or IP), unless `insecure`.
 */
export interface ClusterTlsOptions extends ContextTlsOptions {
  ca: string | Uint8Array;
  /** Do not check the certificate of the members we dial. */
  insecure?: boolean;
  /** Milliseconds the handshake may take. Default 2000. */
  timeout?: number;
}

/**
 * nats-server's `cluster {}`: the port the other members of a cluster connect to, the routes we
 * connect to, and how they log in. Members connect every one to every other (a full mesh): each
 * learns of the others from the routes it has and connects to them too.
 */
export interface ClusterOptions {
  /**
   * The cluster's name; every member must have the same. Default: a generated one, which gives
   * way to another member's configured name (or a greater generated one), as nats-server's
   * dynamic cluster names do.
   */
  name?: string;
  /** Interface of the route port. Default: the client `host`. */
  host?: string;
  /** The route port (`0` or `-1`: a free one). Default 6222. */
  port?: number;
  /** `nats-route://[user:pass@]host:port` (or `nats://`) URLs of members to connect to. */
  routes?: string[];
  /** The user and password other members must send (and ours send when the URL names none). */
  authorization?: {
    user?: string;
    password?: string /** Milliseconds to send CONNECT. */;
    timeout?: number;
  };
  /** Do not tell our clients the other members' client URLs (connect_urls). */
  noAdvertise?: boolean;
  /** Attempts at a route learned from another member before giving up (explicit routes retry forever). Default 0. */
  connectRetries?: number;
  /** Milliseconds between attempts at an explicit route. Default 1000 (nats-server's DEFAULT_ROUTE_RECONNECT). */
  reconnectInterval?: number;
  tls?: ClusterTlsOptions;
}

export interface ResolvedClusterOptions {
  name: string;
  /** True when the name was generated (nats-server's dynamic cluster name). */
  dynamicName: boolean;
  host: string | undefined;
  port: number;
  routes: URL[];
  user: string | undefined;
  password: string | undefined;
  authTimeout: number | undefined;
  noAdvertise: boolean;
  connectRetries: number;
  reconnectInterval: number;
  tls: (ClusterTlsOptions & { timeout: number }) | undefined;
}

/** nats-server's default TLS handshake timeout. */
const DEFAULT_TLS_TIMEOUT = 2_000;
/** nats-server's DEFAULT_ROUTE_PORT. */
const DEFAULT_PORT = 6222;
const DEFAULT_RECONNECT_INTERVAL = 1_000;

export function resolveCluster(
  given: ClusterOptions | undefined,
  generatedName: () => string,
): ResolvedClusterOptions | undefined {
  if (!given) return undefined;
  const invalid = (message: string) => new ServerError('INVALID_OPTION', `cluster ${message}`);
  const port = given.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < -1 || port > 65535) {
    throw invalid(`port must be a port number, got ${port}`);
  }
  if (given.name !== undefined && /\s/.test(given.name)) {
    throw invalid(`name "${given.name}" cannot contain spaces`);
  }
  const retries = given.connectRetries ?? 0;
  if (!Number.isInteger(retries) || retries < 0) {
    throw invalid(`connectRetries must be a whole number, got ${retries}`);
  }
  const interval = given.reconnectInterval ?? DEFAULT_RECONNECT_INTERVAL;
  if (!Number.isFinite(interval) || interval < 0) {
    throw invalid(`reconnectInterval must be milliseconds, got ${interval}`);
  }
  const auth = given.authorization;
  const tls = given.tls;
  if (tls && (!tls.cert || !tls.key || !tls.ca)) {
    throw invalid("tls needs a cert, a key and the ca that signed the members' certificates");
  }
  return {
    name: given.name || generatedName(),
    dynamicName: !given.name,
    host: given.host,
    port: port === -1 ? 0 : port,
    routes: (given.routes ?? []).map((text) => routeUrl(text)),
    user: auth?.user || undefined,
    password: auth?.password,
    authTimeout: auth?.timeout,
    noAdvertise: given.noAdvertise ?? false,
    connectRetries: retries,
    reconnectInterval: interval,
    tls: tls && { ...tls, timeout: tls.timeout ?? DEFAULT_TLS_TIMEOUT },
  };
}

/** A route URL as nats-server reads it: `nats-route://`, `nats://` or a bare `host:port`. */
export function routeUrl(text: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `nats-route://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ServerError('INVALID_OPTION', `cluster routes: invalid url '${text}'`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (!['nats-route', 'nats', 'route'].includes(scheme) || url.port === '') {
    throw new ServerError(
      'INVALID_OPTION',
      `cluster routes: '${text}' is not a nats-route://host:port url`,
    );
  }
  return url;
}
