import type { MonitoredServer } from './monitored-server.js';
import type { createVarz } from './varz.js';

/**
 * nats-server's ServerStats (statsz), from what /varz reports; its JetStream config without the
 * store directory, which nats-server leaves out of what it broadcasts.
 */
export function serverStatsz(server: MonitoredServer, varz: ReturnType<typeof createVarz>) {
  const v = varz();
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
    active_servers: 1,
    ...(v.jetstream && server.jetstream
      ? { jetstream: { ...v.jetstream, config: { ...v.jetstream.config, store_dir: undefined } } }
      : {}),
  };
}
