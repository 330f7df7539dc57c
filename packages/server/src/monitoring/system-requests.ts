/**
 * What the system account answers to `$SYS.REQ.SERVER.<id|PING>.<X>` and
 * `$SYS.REQ.ACCOUNT.<account>.<X>`, as nats-server 2.9.10: the endpoint bodies of the HTTP
 * monitor, with the request body's options (nats-server's JSON option names) read as the query
 * parameters the HTTP endpoints take.
 */
import { accountStatz } from './account-statz.js';
import { accountInfo, accountz } from './accountz.js';
import { connz } from './connz.js';
import { jsz, jszAccount } from './jsz.js';
import { leafz } from './leafz.js';
import type { MonitoredServer } from './monitored-server.js';
import { Query } from './query.js';
import type { RequestOptions } from './request-options.js';
import { routez } from './routez.js';
import { gatewayz } from './standalone-endpoints.js';
import { subsz } from './subsz.js';
import type { createVarz } from './varz.js';

/** A request this server leaves unanswered, as nats-server skips it (errSkipZreq). */
export const SKIP = Symbol('skip');

/** Each request's JSON option names and the query parameters they stand for. */
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
  SUBSZ: {
    subscriptions: 'subs',
    offset: 'offset',
    limit: 'limit',
    test: 'test',
    account: 'acc',
  },
  JSZ: {
    account: 'acc',
    accounts: 'accounts',
    streams: 'streams',
    consumer: 'consumers',
    config: 'config',
    leader_only: 'leader-only',
    offset: 'offset',
    limit: 'limit',
  },
};

/** nats-server's ConnState numbers, as CONNZ's `state` option carries them. */
const CONN_STATES = ['open', 'closed', 'any'];

/** The options as the query of `name`'s HTTP endpoint, with `forced` parameters on top. */
function queryOf(name: string, options: RequestOptions, forced: Record<string, string> = {}) {
  const params = new URLSearchParams();
  for (const [key, param] of Object.entries(QUERY_NAMES[name] ?? {})) {
    let value = options[key];
    if (key === 'state' && typeof value === 'number') value = CONN_STATES[value];
    if (value !== undefined && value !== null && value !== '' && value !== false)
      params.set(param, String(value));
  }
  if (name === 'CONNZ' && options.subscriptions_detail) params.set('subs', 'detail');
  for (const [param, value] of Object.entries(forced)) params.set(param, value);
  return new Query(`/?${params}`);
}

/** nats-server's LeafzEventOptions: `subscriptions` and `account`. */
function leafzOptions(options: RequestOptions) {
  return {
    subscriptions: options.subscriptions === true,
    account: typeof options.account === 'string' ? options.account : undefined,
  };
}

/** Whether the event filter options (nats-server's EventFilterOptions) name this server. */
export function selectsServer(server: MonitoredServer, options: RequestOptions): boolean {
  const { server_name: name, host } = options;
  if (typeof name === 'string' && name !== '' && !server.info.server_name?.includes(name))
    return false;
  if (typeof host === 'string' && host !== '' && !server.options.host.includes(host)) return false;
  return true;
}

/** The data of a server request `name` (all of nats-server's but STATSZ, answered apart). */
export function serverRequestData(
  server: MonitoredServer,
  name: string,
  options: RequestOptions,
  varz: ReturnType<typeof createVarz>,
): unknown {
  switch (name) {
    case 'VARZ':
      return varz();
    case 'CONNZ':
      return connz(server, queryOf(name, options));
    case 'SUBSZ':
      return subsz(server, queryOf(name, options));
    case 'ROUTEZ':
      return routez(server, { subscriptions: options.subscriptions === true });
    case 'GATEWAYZ':
      return gatewayz(server);
    case 'LEAFZ':
      return leafz(server, leafzOptions(options));
    case 'ACCOUNTZ':
      return accountz(server, typeof options.account === 'string' ? options.account : undefined);
    case 'JSZ':
      return jsz(server, queryOf(name, options));
    default:
      return { status: 'ok' };
  }
}

/** The server requests answered with a data envelope, each on PING and on the server's id. */
export const SERVER_REQUESTS = [
  'VARZ',
  'CONNZ',
  'SUBSZ',
  'ROUTEZ',
  'GATEWAYZ',
  'LEAFZ',
  'ACCOUNTZ',
  'JSZ',
  'HEALTHZ',
];

type AccountRequest = (
  server: MonitoredServer,
  account: string,
  options: RequestOptions,
) => unknown;

/** The account requests `$SYS.REQ.ACCOUNT.<account>.<X>` answered with a data envelope. */
export const ACCOUNT_REQUESTS: Record<string, AccountRequest> = {
  SUBSZ: (server, account, options) =>
    subsz(server, queryOf('SUBSZ', options, { subs: '1', acc: account })),
  CONNZ: (server, account, options) => {
    const data = connz(server, queryOf('CONNZ', options, { acc: account }));
    // nats-server answers for an account it does not have without its id or a list.
    if (server.accounts.get(account)) return data;
    return { ...data, server_id: '', connections: null };
  },
  LEAFZ: (server, account, options) => leafz(server, { ...leafzOptions(options), account }),
  JSZ: (server, account, options) => jszAccount(server, account, queryOf('JSZ', options)),
  INFO: (server, account) => accountInfo(server, account),
  STATZ: (server, account, options) =>
    // `$SYS.REQ.ACCOUNT.PING.STATZ` is the ping to every account, not an account's request.
    account === 'PING' ? SKIP : statz(server, options, [account]),
};

/**
 * The STATZ answer: the stats of `accounts` (of the options' `accounts` when not given), left
 * unanswered when none is in use and unused ones were not asked for.
 */
export function statz(server: MonitoredServer, options: RequestOptions, accounts?: string[]) {
  const includeUnused = options.include_unused === true;
  const asked = Array.isArray(options.accounts)
    ? options.accounts.filter((a): a is string => typeof a === 'string')
    : undefined;
  const answer = accountStatz(server, { accounts: accounts ?? asked, includeUnused });
  return answer.account_statz.length === 0 && !includeUnused ? SKIP : answer;
}
