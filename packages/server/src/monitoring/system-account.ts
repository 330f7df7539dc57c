/**
 * The system account's side of this server, as nats-server 2.9.10 runs it:
 * - events: connects and disconnects of every account but `$G` on
 *   `$SYS.ACCOUNT.<account>.CONNECT|DISCONNECT`; failed logins on
 *   `$SYS.SERVER.<id>.CLIENT.AUTH.ERR`; an account's connection count on
 *   `$SYS.ACCOUNT.<account>.SERVER.CONNS` (and the older `$SYS.SERVER.ACCOUNT.<account>.CONNS`)
 *   when it changes and every 30 s while it has connections; the server's statsz on
 *   `$SYS.SERVER.<id>.STATSZ` 250 ms after start, then at doubling intervals up to every 30 s;
 *   `$SYS.SERVER.<id>.SHUTDOWN` when it shuts down;
 * - requests, answered in the system account only: `$SYS.REQ.SERVER.PING` (statsz),
 *   `$SYS.REQ.SERVER.<PING|id>.<X>` (system-requests.ts), `$SYS.REQ.ACCOUNT.<account>.<X>` and
 *   `$SYS.REQ.ACCOUNT.PING.STATZ`, `$SYS.REQ.ACCOUNT.NSUBS` (account-nsubs.ts), their options read by request-options.ts and their answers
 *   compressed for `Accept-Encoding`; other accounts reach their own CONNZ and STATZ through the
 *   imports of system-imports.ts;
 * - as nats-server 2.11, whose version we advertise: IDZ on `$SYS.REQ.SERVER.<PING|id>.IDZ` and
 *   `$SYS.REQ.USER.INFO`, imported into every account (user-info.ts).
 */
import { nuid } from '@slipstream/protocol';
import { type Account, GLOBAL_ACCOUNT } from '../accounts/account.js';
import { clientInfo as describedClient, rttNanos } from '../accounts/client-info.js';
import { encodedFor } from '../content-encoding.js';
import type { InternalClient, InternalMessage } from '../internal-client.js';
import { headerValue } from '../jetstream/shared/header-block.js';
import { NATS_COMPATIBLE_VERSION } from '../version.js';
import { accountNumSubscriptions, NSUBS_REQUEST } from './account-nsubs.js';
import { accountStat } from './account-statz.js';
import { goJson, rfc3339 } from './format.js';
import type { MonitoredConnection } from './monitored-connection.js';
import type { MonitoredServer } from './monitored-server.js';
import { QueryError } from './query.js';
import {
  ACCOUNT_OPTIONS,
  CONNS_OPTIONS,
  type OptionsStruct,
  type RequestOptions,
  readOptions,
  SERVER_OPTIONS,
} from './request-options.js';
import { serverStatsz } from './statsz.js';
import { importSystemServices } from './system-imports.js';
import {
  ACCOUNT_REQUESTS,
  SERVER_REQUESTS,
  SKIP,
  selectsServer,
  serverRequestData,
  statz,
} from './system-requests.js';
import { USER_INFO_REQUESTS, userInfo } from './user-info.js';
import { createVarz } from './varz.js';

/** nats-server's eventsHBInterval: the statsz and account connection heartbeats' period. */
const HEARTBEAT_MS = 30_000;
/** The first statsz goes out this soon after start; the interval then doubles. */
const FIRST_STATSZ_MS = 250;

export class SystemAccount {
  readonly #server: MonitoredServer;
  readonly #client: InternalClient;
  readonly #varz: ReturnType<typeof createVarz>;
  #seq = 0;
  /** False once the server shuts down: nothing more is sent. */
  #running = true;
  #statszDelay = FIRST_STATSZ_MS;
  #statszTimer: NodeJS.Timeout;
  /** Accounts with connections, each with the timer of its next SERVER.CONNS heartbeat. */
  readonly #connsTimers = new Map<string, NodeJS.Timeout>();

  constructor(server: MonitoredServer, client: InternalClient) {
    this.#server = server;
    this.#client = client;
    this.#varz = createVarz(server, {});
    client.subscribe('$SYS.REQ.SERVER.PING', (m) => this.#statszRequest(m));
    const id = server.serverId;
    for (const target of ['PING', id]) {
      client.subscribe(`$SYS.REQ.SERVER.${target}.STATSZ`, (m) => this.#statszRequest(m));
      client.subscribe(`$SYS.REQ.SERVER.${target}.IDZ`, (m) => this.#idzRequest(m));
      for (const name of SERVER_REQUESTS) {
        client.subscribe(`$SYS.REQ.SERVER.${target}.${name}`, (m) =>
          this.#dataRequest(m, SERVER_OPTIONS[name]!, (options) =>
            serverRequestData(server, name, options, this.#varz),
          ),
        );
      }
    }
    for (const [name, answer] of Object.entries(ACCOUNT_REQUESTS)) {
      client.subscribe(`$SYS.REQ.ACCOUNT.*.${name}`, (m) =>
        this.#dataRequest(m, ACCOUNT_OPTIONS[name]!, (options) =>
          answer(server, accountOf(m.subject), options),
        ),
      );
    }
    client.subscribe('$SYS.REQ.ACCOUNT.PING.STATZ', (m) =>
      this.#dataRequest(m, ACCOUNT_OPTIONS.STATZ!, (options) => statz(server, options)),
    );
    client.subscribe('$SYS.REQ.ACCOUNT.*.CONNS', (m) => this.#connsRequest(m));
    client.subscribe(USER_INFO_REQUESTS, (m) => this.#userInfoRequest(m));
    client.subscribe(NSUBS_REQUEST, (m) => this.#nsubsRequest(m));
    const system = server.accounts.system;
    for (const account of server.accounts.values()) importSystemServices(account, system, id);
    this.#statszTimer = setTimeout(() => this.#statszHeartbeat(), this.#statszDelay).unref();
  }

  /**
   * A connection was accepted: it is in `$G` until it authenticates, and nats-server sends
   * `$G`'s new count for it.
   */
  accepted(client: MonitoredConnection): void {
    if (this.#running) this.#sendConns(client.account);
  }

  /**
   * A client finished CONNECT: its account's new count, and (but for `$G`) a connect event.
   * nats-server counts `$G` joins too, though not `$G` leaves.
   */
  connected(client: MonitoredConnection): void {
    if (!this.#running) return;
    const account = client.account.name;
    this.#sendConns(client.account);
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

  /**
   * A client closed: its account's new count and (but for `$G`) a disconnect event; one that
   * failed to authenticate is also announced on `$SYS.SERVER.<id>.CLIENT.AUTH.ERR`.
   */
  disconnected(client: MonitoredConnection): void {
    if (!this.#running) return;
    if (client.closeReason === 'Authentication Failure') {
      this.#sendDisconnect(`$SYS.SERVER.${this.#server.serverId}.CLIENT.AUTH.ERR`, client);
    }
    const account = client.account.name;
    if (account === GLOBAL_ACCOUNT) return;
    this.#sendConns(client.account);
    this.#sendDisconnect(`$SYS.ACCOUNT.${account}.DISCONNECT`, client);
  }

  /** nats-server's DisconnectEventMsg for `client`, if anyone listens on `subject`. */
  #sendDisconnect(subject: string, client: MonitoredConnection): void {
    if (!this.#client.hasInterest(subject)) return;
    const rtt = rttNanos(client);
    const stop = rfc3339(client.stoppedAt ?? Date.now());
    this.#send(subject, {
      type: 'io.nats.server.advisory.v1.client_disconnect',
      id: nuid.next(),
      timestamp: stop,
      server: this.#serverInfo(),
      client: { ...clientInfo(client), ...(rtt > 0 ? { rtt } : {}), stop },
      sent: { msgs: client.inMsgs, bytes: client.inBytes },
      received: { msgs: client.outMsgs, bytes: client.outBytes },
      reason: client.closeReason ?? '',
    });
  }

  /**
   * The server starts shutting down: `$SYS.SERVER.<id>.SHUTDOWN` with its identity goes out
   * while the clients are still there, and then no event more (nor for the clients it closes).
   */
  shutdown(): void {
    if (!this.#running) return;
    this.#send(`$SYS.SERVER.${this.#server.serverId}.SHUTDOWN`, this.#serverInfo());
    this.#running = false;
    clearTimeout(this.#statszTimer);
    for (const timer of this.#connsTimers.values()) clearTimeout(timer);
    this.#connsTimers.clear();
  }

  close(): void {
    this.shutdown();
    this.#client.close();
  }

  /** Answers a request in the system account: `body` with the server's identity. */
  reply(subject: string, body: object): void {
    this.#send(subject, { ...body, server: this.#serverInfo() });
  }

  #statszHeartbeat(): void {
    this.#statszDelay = Math.min(this.#statszDelay * 2, HEARTBEAT_MS);
    this.#statszTimer = setTimeout(() => this.#statszHeartbeat(), this.#statszDelay).unref();
    this.#sendStatsz(`$SYS.SERVER.${this.#server.serverId}.STATSZ`);
  }

  #sendStatsz(subject: string): void {
    this.#send(subject, {
      server: this.#serverInfo(),
      statsz: serverStatsz(this.#server, this.#varz),
    });
  }

  /** STATSZ: answered without the data envelope; without a reply, on the heartbeat subject. */
  #statszRequest(message: InternalMessage): void {
    if (!this.#running) return;
    const to = message.reply || `$SYS.SERVER.${this.#server.serverId}.STATSZ`;
    const options = readOptions(SERVER_OPTIONS.STATSZ!, message.payload);
    if (options instanceof Error) {
      this.#send(to, { server: this.#serverInfo(), error: badRequest(options) });
    } else if (selectsServer(this.#server, options)) {
      this.#sendStatsz(to);
    }
  }

  /**
   * A request answered `{server, data}`, compressed as its `Accept-Encoding` header asks:
   * options that do not decode answer 400, a failure to build the data 500 (with `data: null`,
   * as nats-server), a filter naming another server or a SKIP nothing.
   */
  #dataRequest(
    message: InternalMessage,
    struct: OptionsStruct,
    build: (options: RequestOptions) => unknown,
  ): void {
    const reply = message.reply;
    if (!reply || !this.#running) return;
    const options = readOptions(struct, message.payload);
    if (options instanceof Error) {
      this.#send(reply, { server: this.#serverInfo(), error: badRequest(options) });
      return;
    }
    if (!selectsServer(this.#server, options)) return;
    let data: unknown;
    try {
      data = build(options);
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      this.#send(reply, {
        server: this.#serverInfo(),
        data: null,
        error: { code: 500, description: error.message },
      });
      return;
    }
    if (data === SKIP) return;
    // Only a successful answer is compressed, as nats-server.
    const accept = message.headers && headerValue(message.headers, 'Accept-Encoding');
    const json = Buffer.from(goJson({ server: this.#serverInfo(), data }, false));
    const { headers, payload } = encodedFor(accept, json);
    this.#client.publish(reply, payload, { headers });
  }

  /** IDZ: the server's name, host and id alone, with no envelope nor options (nats-server 2.11). */
  #idzRequest(message: InternalMessage): void {
    if (!message.reply || !this.#running) return;
    const { name, host, id } = this.#serverInfo();
    this.#send(message.reply, { name, host, id });
  }

  /** `$SYS.REQ.USER.<account>.INFO`: who the requester is (user-info.ts), 400 if unreadable. */
  #userInfoRequest(message: InternalMessage): void {
    if (!message.reply || !this.#running) return;
    const data = userInfo(this.#server, message.headers);
    // nats-server's ApiError of a bad request carries the code alone.
    const answer = data instanceof Error ? { error: { code: 400 } } : { data };
    this.#send(message.reply, { server: this.#serverInfo(), ...answer });
  }

  /** `$SYS.REQ.ACCOUNT.NSUBS`: the bare count of account-nsubs.ts, when it answers. */
  #nsubsRequest(message: InternalMessage): void {
    if (!message.reply || !this.#running) return;
    const count = accountNumSubscriptions(this.#server, message.payload);
    if (count !== undefined) this.#send(message.reply, count);
  }

  /** `$SYS.REQ.ACCOUNT.<account>.CONNS`: the account's count event, if it has connections. */
  #connsRequest(message: InternalMessage): void {
    if (!message.reply || !this.#running) return;
    const name = accountOf(message.subject);
    const options = readOptions(CONNS_OPTIONS, message.payload);
    if (options instanceof Error || (options.acc !== undefined && options.acc !== name)) return;
    const account = this.#server.accounts.get(name);
    if (account && account.connections > 0) this.#sendConns(account, [message.reply]);
  }

  /**
   * nats-server's AccountNumConns for `account` on `subjects` (its two event subjects unless
   * a request's reply is given), built only when someone listens, and the account's heartbeat
   * re-armed while it has connections.
   */
  #sendConns(
    account: Account,
    subjects = [
      `$SYS.SERVER.ACCOUNT.${account.name}.CONNS`,
      `$SYS.ACCOUNT.${account.name}.SERVER.CONNS`,
    ],
  ): void {
    clearTimeout(this.#connsTimers.get(account.name));
    if (account.connections === 0) {
      this.#connsTimers.delete(account.name);
    } else {
      const timer = setTimeout(() => this.#sendConns(account), HEARTBEAT_MS).unref();
      this.#connsTimers.set(account.name, timer);
    }
    const wanted = subjects.filter((subject) => this.#client.hasInterest(subject));
    if (wanted.length === 0) return;
    const event = {
      type: 'io.nats.server.advisory.v1.account_connections',
      id: nuid.next(),
      timestamp: rfc3339(Date.now()),
    };
    const stat = accountStat(this.#server, account);
    for (const subject of wanted)
      this.#send(subject, { ...event, server: this.#serverInfo(), ...stat });
  }

  /** Who sends: nats-server's ServerInfo, with a sequence number per message sent. */
  #serverInfo() {
    const { name, host, id, jetstream } = this.#server.identity();
    const routes = this.#server.routes;
    return {
      name,
      host,
      id,
      ...(routes ? { cluster: routes.name } : {}),
      ver: NATS_COMPATIBLE_VERSION,
      seq: ++this.#seq,
      jetstream,
      time: rfc3339(Date.now()),
    };
  }

  /** Sends `body` as JSON written the way nats-server writes it (format.ts). */
  #send(subject: string, body: object | number): void {
    this.#client.publish(subject, Buffer.from(goJson(body, false)));
  }
}

/** The account token of `$SYS.REQ.ACCOUNT.<account>.<X>`. */
function accountOf(subject: string): string {
  return subject.split('.')[3]!;
}

function badRequest(error: Error) {
  return { code: 400, description: error.message };
}

/**
 * nats-server's ClientInfo for a connection, as its connect event carries it: that of
 * accounts/client-info.ts without the RTT and the server's id, which these events leave out
 * (the disconnect event adds its RTT).
 */
function clientInfo(client: MonitoredConnection) {
  const {
    rtt: _rtt,
    server: _server,
    ...info
  } = describedClient(client, client.account.name, {
    serverId: '',
  });
  return info;
}
