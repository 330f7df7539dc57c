import { goDuration, rfc3339 } from './format.js';
import { linkTraffic } from './link-traffic.js';
import type { MonitoredServer } from './monitored-server.js';

/** /leafz's options: `subs` lists each connection's subscriptions, `acc` keeps one account's. */
export interface LeafzOptions {
  subscriptions?: boolean;
  account?: string;
}

/**
 * /leafz in nats-server 2.9.10's shape (Leafz and LeafInfo): one entry per leaf connection, in
 * either role; `subscriptions` counts the interest the other server announced to us. Without
 * leaf connections nats-server writes the list as null.
 */
export function leafz(server: MonitoredServer, options: LeafzOptions = {}) {
  const views = server.leafNodes?.views(options.account, options.subscriptions) ?? [];
  const leafs = views.map((leaf) => ({
    account: leaf.account,
    ip: leaf.ip,
    port: leaf.port,
    rtt: goDuration(leaf.rtt ?? 0),
    ...linkTraffic(leaf, options.subscriptions),
  }));
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    leafnodes: leafs.length,
    leafs: leafs.length > 0 ? leafs : null,
  };
}
