import { availableParallelism, cpus } from 'node:os';
import { NATS_COMPATIBLE_VERSION, VERSION } from '../version.js';
import { rfc3339, uptime } from './format.js';
import { jetStreamConfig, jetStreamStats } from './jsz.js';
import type { MonitoredServer } from './monitored-server.js';
import { subscriptionCount } from './subsz.js';

const NS_PER_MS = 1_000_000;

/** CPU use between two /varz requests, as a percentage of one core (like ps, which nats-server uses). */
class CpuSampler {
  #lastUsage = process.cpuUsage();
  #lastTime = performance.now();
  #percent = 0;

  sample(): number {
    const now = performance.now();
    const elapsedMs = now - this.#lastTime;
    // Requests closer than 1 s apart reuse the last figure rather than divide by ~0.
    if (elapsedMs >= 1_000) {
      const usage = process.cpuUsage(this.#lastUsage);
      this.#percent = Math.round(((usage.user + usage.system) / 1_000 / elapsedMs) * 10_000) / 100;
      this.#lastUsage = process.cpuUsage();
      this.#lastTime = now;
    }
    return this.#percent;
  }
}

/** /varz, with nats-server 2.9.10's fields in its order, plus `slipstream_version`. */
export function createVarz(server: MonitoredServer, httpReqStats: Record<string, number>) {
  const cpu = new CpuSampler();
  return () => {
    const { options, info, stats } = server;
    const now = Date.now();
    return {
      server_id: server.serverId,
      server_name: info.server_name,
      version: NATS_COMPATIBLE_VERSION,
      slipstream_version: VERSION,
      proto: info.proto,
      go: info.go,
      host: options.host,
      port: info.port,
      ...(info.auth_required ? { auth_required: true } : {}),
      ...(info.tls_required ? { tls_required: true } : {}),
      ...(info.tls_verify ? { tls_verify: true } : {}),
      max_connections: options.maxConnections,
      ...(options.maxSubscriptions > 0 ? { max_subscriptions: options.maxSubscriptions } : {}),
      ping_interval: options.pingInterval * NS_PER_MS,
      ping_max: options.pingMax,
      http_host: options.httpHost,
      http_port: options.httpsMonitoring ? 0 : (server.httpPort ?? 0),
      http_base_path: '',
      https_port: options.httpsMonitoring ? server.httpPort : 0,
      auth_timeout: options.authTimeout / 1_000,
      max_control_line: options.maxControlLine,
      max_payload: options.maxPayload,
      max_pending: options.maxPending,
      cluster: clusterVarz(server),
      gateway: {},
      leaf: leafVarz(server),
      mqtt: {},
      websocket: {},
      jetstream: server.jetstream
        ? {
            config: jetStreamConfig(server.jetstream.options),
            stats: jetStreamStats(server.jetstream),
          }
        : {},
      tls_timeout: (options.tls?.timeout ?? 2_000) / 1_000,
      write_deadline: options.writeDeadline * NS_PER_MS,
      start: rfc3339(server.startedAt),
      now: rfc3339(now),
      uptime: uptime(now - server.startedAt),
      mem: process.memoryUsage.rss(),
      cores: cpus().length,
      gomaxprocs: availableParallelism(),
      cpu: cpu.sample(),
      connections: server.clients.size,
      total_connections: server.totalConnections,
      routes: server.routes?.count ?? 0,
      remotes: server.routes?.count ?? 0,
      leafnodes: server.leafNodes?.count ?? 0,
      in_msgs: stats.inMsgs,
      out_msgs: stats.outMsgs,
      in_bytes: stats.inBytes,
      out_bytes: stats.outBytes,
      slow_consumers: stats.slowConsumers,
      subscriptions: subscriptionCount(server),
      http_req_stats: httpReqStats,
      config_load_time: rfc3339(server.startedAt),
      system_account: options.systemAccount,
    };
  };
}

/** nats-server's ClusterOptsVarz: the route port and the configured routes (empty without `cluster`). */
function clusterVarz(server: MonitoredServer) {
  const routes = server.routes;
  if (!routes) return {};
  const settings = routes.settings;
  return {
    name: routes.name,
    addr: routes.host,
    cluster_port: routes.port,
    auth_timeout: (settings.authTimeout ?? server.options.authTimeout) / 1_000,
    ...(settings.routes.length > 0 ? { urls: settings.routes.map((url) => url.host) } : {}),
    tls_timeout: 2,
  };
}

/** nats-server's LeafNodeOptsVarz: the leaf node port and the remotes (empty without `leafnodes`). */
function leafVarz(server: MonitoredServer) {
  const leaf = server.leafNodes;
  if (!leaf) return {};
  const port = leaf.port;
  return {
    ...(port === undefined ? {} : { host: leaf.host, port }),
    auth_timeout: (leaf.settings.authTimeout ?? server.options.authTimeout) / 1_000,
    // nats-server shows the TLS timeout (2 s by default) without TLS too.
    tls_timeout: (leaf.settings.tls?.timeout ?? 2_000) / 1_000,
    ...(leaf.settings.tls ? { tls_required: true } : {}),
    ...(leaf.settings.tls?.verify ? { tls_verify: true } : {}),
    ...(leaf.settings.remotes.length > 0
      ? {
          // nats-server's RemoteLeafOptsVarz: the account as configured (none for the default
          // $G), the URLs' host:port without credentials, the deny lists.
          remotes: leaf.settings.remotes.map((remote) => ({
            ...(remote.account === '$G' ? {} : { local_account: remote.account }),
            urls: remote.urls.map((url) => url.host),
            ...(remote.denyImports.length > 0 || remote.denyExports.length > 0
              ? {
                  deny: {
                    ...(remote.denyExports.length > 0 ? { exports: remote.denyExports } : {}),
                    ...(remote.denyImports.length > 0 ? { imports: remote.denyImports } : {}),
                  },
                }
              : {}),
          })),
        }
      : {}),
  };
}
