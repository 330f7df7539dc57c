/**
 * /gatewayz of a server without gateways (this one has none): the empty answer nats-server
 * 2.9.10 gives when they are not configured. /leafz is `leafz.ts`, /routez `routez.ts`.
 */
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';

export function gatewayz(server: MonitoredServer) {
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    outbound_gateways: {},
    inbound_gateways: {},
  };
}
