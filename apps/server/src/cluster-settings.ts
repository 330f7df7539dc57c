import { type ClusterOptions, type ClusterTlsOptions, ServerError } from '@slipstream/server';
import type { Settings } from './settings.js';
import { readPem } from './tls-files.js';

/** A cluster setting nats-server would refuse too, refused as the library refuses its options. */
function invalid(message: string): ServerError {
  return new ServerError('INVALID_OPTION', message);
}

/**
 * The library's cluster options from the file's block and the flags: `listen` (`--cluster
 * nats://[user:pass@]host:port`, or the block's `host:port` or port) gives the route port and,
 * with credentials, the routes' authorization; `--routes` is a comma-separated list. As in
 * nats-server, a cluster runs only with a port to listen on.
 */
export function toClusterOptions(
  cluster: Settings['cluster'],
  /** `cluster.tls` with its files read ({@link readClusterTlsFiles}). */
  tls?: ClusterTlsOptions,
): ClusterOptions | undefined {
  if (!cluster) return undefined;
  const { listen, routes, tls: _files, ...rest } = cluster;
  const options: ClusterOptions = { ...rest, ...(tls ? { tls } : {}) };
  if (listen !== undefined && /^-?\d+$/.test(listen)) {
    options.port = Number(listen);
  } else if (listen !== undefined) {
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(listen) ? listen : `nats://${listen}`);
    } catch {
      throw invalid(`cluster listen "${listen}" is not [nats://]host:port`);
    }
    if (url.hostname !== '') options.host = url.hostname.replace(/^\[|\]$/g, '');
    if (url.port === '') throw invalid(`cluster listen "${listen}" has no port`);
    options.port = Number(url.port);
    if (url.username) {
      options.authorization = {
        ...options.authorization,
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      };
    }
  }
  if (options.port === undefined) {
    throw invalid('cluster needs a port: give cluster { port } or --cluster');
  }
  if (routes !== undefined) {
    options.routes = (typeof routes === 'string' ? routes.split(',') : routes)
      .map((route) => route.trim())
      .filter((route) => route !== '');
  }
  return options;
}

/** The cluster TLS files read, at the start (a bad one stops it, as the client port's do). */
export function readClusterTlsFiles(
  tls: NonNullable<Settings['cluster']>['tls'],
): ClusterTlsOptions | undefined {
  if (!tls) return undefined;
  return {
    cert: readPem(tls.cert, 'certificate'),
    key: readPem(tls.key, 'private key'),
    ca: readPem(tls.ca, 'CA certificate'),
    ...(tls.insecure ? { insecure: true } : {}),
    ...(tls.timeout ? { timeout: tls.timeout } : {}),
  };
}
