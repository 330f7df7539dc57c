/**
 * /routez, /gatewayz and /leafz of a server without clusters, gateways or leaf nodes (this one
 * has none of them): the empty answers nats-server 2.9.10 gives when they are not configured.
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

export function leafz(server: MonitoredServer) {
  // nats-server writes its empty list of leaf nodes as null.
  return { server_id: server.serverId, now: rfc3339(Date.now()), leafnodes: 0, leafs: null };
}
