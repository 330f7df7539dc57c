/**
 * /routez and /gatewayz of a server without clusters or gateways (this one has neither): the
 * empty answers nats-server 2.9.10 gives when they are not configured. /leafz is `leafz.ts`.
 */
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';

export function routez(server: MonitoredServer) {
  return { server_id: server.serverId, now: rfc3339(Date.now()), num_routes: 0, routes: [] };
}

export function gatewayz(server: MonitoredServer) {
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    outbound_gateways: {},
    inbound_gateways: {},
  };
}
