import { goDuration, rfc3339, uptime } from './format.js';
import { linkTraffic } from './link-traffic.js';
import type { MonitoredServer } from './monitored-server.js';

/**
 * /routez in nats-server 2.9.10's shape (Routez and RouteInfo): one entry per registered route;
 * `subscriptions` counts the interest the other member announced to us, listed with `subs=1`.
 */
export function routez(server: MonitoredServer, options: { subscriptions?: boolean } = {}) {
  const now = Date.now();
  const views = server.routes?.views(options.subscriptions) ?? [];
  return {
    server_id: server.serverId,
    now: rfc3339(now),
    num_routes: views.length,
    routes: views.map((route) => ({
      rid: route.rid,
      remote_id: route.remoteId,
      did_solicit: route.didSolicit,
      is_configured: route.isConfigured,
      ip: route.ip,
      port: route.port,
      start: rfc3339(route.start),
      last_activity: rfc3339(route.lastActivity),
      rtt: goDuration(route.rtt ?? 0),
      uptime: uptime(now - route.start),
      idle: uptime(now - route.lastActivity),
      ...(route.permissions.import ? { import: route.permissions.import } : {}),
      ...(route.permissions.export ? { export: route.permissions.export } : {}),
      pending_size: route.pendingSize,
      ...linkTraffic(route, options.subscriptions),
    })),
  };
}
