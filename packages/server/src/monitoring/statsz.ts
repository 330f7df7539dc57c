import type { MonitoredServer } from './monitored-server.js';
import type { createVarz } from './varz.js';

/**
 * nats-server's ServerStats (statsz), from what /varz reports, with each route's traffic; its
 * JetStream config without the store directory, which nats-server leaves out of what it
 * broadcasts.
 */
export function serverStatsz(server: MonitoredServer, varz: ReturnType<typeof createVarz>) {
  const v = varz();
  const routes = server.routes?.views() ?? [];
  const accounts = new Set<string>();
  for (const client of server.clients.values()) accounts.add(client.account.name);
  return {
    start: v.start,
    mem: v.mem,
    cores: v.cores,
    cpu: v.cpu,
    connections: v.connections,
    total_connections: v.total_connections,
    active_accounts: accounts.size,
    subscriptions: v.subscriptions,
    sent: { msgs: v.out_msgs, bytes: v.out_bytes },
    received: { msgs: v.in_msgs, bytes: v.in_bytes },
    slow_consumers: v.slow_consumers,
    ...(routes.length > 0
      ? {
          routes: routes.map((route) => ({
            rid: route.rid,
            name: route.remoteName,
            sent: { msgs: route.outMsgs, bytes: route.outBytes },
            received: { msgs: route.inMsgs, bytes: route.inBytes },
            pending: route.pendingSize,
          })),
        }
      : {}),
    // nats-server counts the servers it heard in the system account; in a full mesh, every member.
    active_servers: 1 + routes.length,
    ...(v.jetstream && server.jetstream
      ? { jetstream: { ...v.jetstream, config: { ...v.jetstream.config, store_dir: undefined } } }
      : {}),
  };
}
