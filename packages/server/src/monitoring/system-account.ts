/**
 * The system account's side of this server, as nats-server 2.9.10 runs it: connect and
 * disconnect events of every account but `$G` on `$SYS.ACCOUNT.<account>.CONNECT|DISCONNECT`,
 * and the monitoring requests `$SYS.REQ.SERVER.PING` (statsz), `$SYS.REQ.SERVER.PING.<X>` and
 * `$SYS.REQ.SERVER.<id>.<X>` for STATSZ, VARZ, CONNZ, SUBSZ, JSZ and HEALTHZ, answered in the
 * system account only, with the same bodies as the HTTP endpoints.
 */
import { nuid } from '@slipstream/protocol';
import { GLOBAL_ACCOUNT } from '../accounts/account.js';
import type { ClientConnection } from '../client-connection.js';
import type { InternalClient, InternalMessage } from '../internal-client.js';
import { NATS_COMPATIBLE_VERSION } from '../version.js';
import { connz } from './connz.js';
import { rfc3339 } from './format.js';
import { jsz } from './jsz.js';
import type { MonitoredServer } from './monitored-server.js';
import { Query, QueryError } from './query.js';
import { subsz } from './subsz.js';
import { createVarz } from './varz.js';

/** The request body's options nats-server takes, as the query parameter each HTTP endpoint reads. */
const QUERY_NAMES: Record<string, Record<string, string>> = {
  CONNZ: {
    sort: 'sort',
    auth: 'auth',
    subscriptions: 'subs',
    offset: 'offset',
    limit: 'limit',
    cid: 'cid',
    state: 'state',
    user: 'user',
    acc: 'acc',
  },
  SUBSZ: { subscriptions: 'subs', offset: 'offset', limit: 'limit', test: 'test' },
  JSZ: {
    account: 'acc',
    accounts: 'accounts',
    streams: 'streams',
    consumers: 'consumers',
    config: 'config',
    offset: 'offset',
    limit: 'limit',
  },
  VARZ: {},
  STATSZ: {},
  HEALTHZ: {},
};

export class SystemAccount {
  readonly #server: MonitoredServer;
  readonly #client: InternalClient;
  readonly #varz: ReturnType<typeof createVarz>;
  #seq = 0;

  constructor(server: MonitoredServer, client: InternalClient) {
    this.#server = server;
    this.#client = client;
    this.#varz = createVarz(server, {});
    const answer = (name: string) => (m: InternalMessage) => this.#answer(name, m);
    client.subscribe('$SYS.REQ.SERVER.PING', answer('STATSZ'));
    for (const name of Object.keys(QUERY_NAMES)) {
      client.subscribe(`$SYS.REQ.SERVER.PING.${name}`, answer(name));
      client.subscribe(`$SYS.REQ.SERVER.${server.serverId}.${name}`, answer(name));
    }
  }

  /** A client finished CONNECT; nats-server reports those of every account but `$G`. */
  connected(client: ClientConnection): void {
    const account = client.account.name;
    const subject = `$SYS.ACCOUNT.${account}.CONNECT`;
    if (account === GLOBAL_ACCOUNT || !this.#client.hasInterest(subject)) return;
    this.#send(subject, {
      type: 'io.nats.server.advisory.v1.client_connect',
      id: nuid.next(),
      timestamp: rfc3339(Date.now()),
      server: this.#serverInfo(),
      client: clientInfo(client),
    });
  }

  disconnected(client: ClientConnection): void {
    const account = client.account.name;
    const subject = `$SYS.ACCOUNT.${account}.DISCONNECT`;
    if (account === GLOBAL_ACCOUNT || !this.#client.hasInterest(subject)) return;
    const rtt = client.rtt === undefined ? 0 : Math.round(client.rtt * 1e6);
    this.#send(subject, {
      type: 'io.nats.server.advisory.v1.client_disconnect',
      id: nuid.next(),
      timestamp: rfc3339(client.stoppedAt ?? Date.now()),
      server: this.#serverInfo(),
      client: {
        ...clientInfo(client),
        ...(rtt > 0 ? { rtt } : {}),
        stop: rfc3339(client.stoppedAt ?? Date.now()),
      },
      sent: { msgs: client.inMsgs, bytes: client.inBytes },
      received: { msgs: client.outMsgs, bytes: client.outBytes },
      reason: client.closeReason ?? '',
    });
  }

  close(): void {
    this.#client.close();
  }

  #answer(name: string, message: InternalMessage): void {
    if (!message.reply) return;
    let options: Record<string, unknown> = {};
    if (message.payload.length > 0) {
      try {
        options = JSON.parse(Buffer.from(message.payload).toString()) as Record<string, unknown>;
      } catch {
        return;
      }
    }
    if (!this.#selected(options)) return;
    const reply = message.reply;
    if (name === 'STATSZ') {
      this.#send(reply, { server: this.#serverInfo(), statsz: this.#statsz() });
      return;
    }
    try {
      this.#send(reply, { server: this.#serverInfo(), data: this.#data(name, options) });
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      this.#send(reply, {
        server: this.#serverInfo(),
        error: { code: 400, description: error.message },
      });
    }
  }

  /** The event filter options of a request (nats-server's EventFilterOptions) name this server. */
  #selected(options: Record<string, unknown>): boolean {
    const { server_name: name, host } = options;
    if (typeof name === 'string' && name !== '' && !this.#server.info.server_name?.includes(name))
      return false;
    if (typeof host === 'string' && host !== '' && !this.#server.options.host.includes(host))
      return false;
    return true;
  }

  #data(name: string, options: Record<string, unknown>): unknown {
    const params = new URLSearchParams();
    for (const [key, param] of Object.entries(QUERY_NAMES[name]!)) {
      const value = options[key];
      if (value !== undefined && value !== null && value !== '' && value !== false)
        params.set(param, String(value));
    }
    if (options.subscriptions_detail) params.set('subs', 'detail');
    const query = new Query(`/?${params}`);
    switch (name) {
      case 'VARZ':
        return this.#varz();
      case 'CONNZ':
        return connz(this.#server, query);
      case 'SUBSZ':
        return subsz(this.#server, query);
      case 'JSZ':
        return jsz(this.#server, query);
      default:
        return { status: 'ok' };
    }
  }

  /** nats-server's ServerStats, from what /varz reports. */
  #statsz() {
    const v = this.#varz();
    const accounts = new Set<string>();
    for (const client of this.#server.clients.values()) accounts.add(client.account.name);
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
      ...(this.#server.jetstream ? { jetstream: v.jetstream } : {}),
    };
  }

  /** Who sends: nats-server's ServerInfo, with a sequence number per message sent. */
  #serverInfo() {
    const { info, options, serverId } = this.#server;
    return {
      name: info.server_name ?? serverId,
      host: options.host,
      id: serverId,
      ver: NATS_COMPATIBLE_VERSION,
      seq: ++this.#seq,
      jetstream: this.#server.jetstream !== undefined,
      time: rfc3339(Date.now()),
    };
  }

  /** Answers a request in the system account: `body` with the server's identity. */
  reply(subject: string, body: object): void {
    this.#send(subject, { ...body, server: this.#serverInfo() });
  }

  #send(subject: string, body: object): void {
    this.#client.publish(subject, Buffer.from(JSON.stringify(body)));
  }
}

/** nats-server's ClientInfo for a connection, as its connect event carries it. */
function clientInfo(client: ClientConnection) {
  return {
    start: rfc3339(client.startedAt),
    host: client.ip,
    id: client.cid,
    acc: client.account.name,
    ...(client.user === undefined ? {} : { user: client.user }),
    ...(client.name ? { name: client.name } : {}),
    ...(client.lang ? { lang: client.lang } : {}),
    ...(client.version ? { ver: client.version } : {}),
    kind: 'Client',
    client_type: 'nats',
  };
}
