import type { Export } from '../accounts/account.js';
import type { MappingDestination } from '../accounts/subject-mappings.js';
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';
import { QueryError } from './query.js';

/**
 * /accountz (and ACCOUNTZ requests): the names of the accounts, or with `account` that
 * account's details instead.
 */
export function accountz(server: MonitoredServer, account?: string) {
  const head = {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    system_account: server.accounts.system.name,
  };
  if (!account) {
    return { ...head, accounts: [...server.accounts.values()].map((a) => a.name) };
  }
  return { ...head, account_detail: accountInfo(server, account) };
}

/**
 * nats-server's AccountInfo for an account of the configuration: never expired, always
 * complete, updated when the server started; its mappings, exports (without their latency
 * tracking) and imports, the system account's services among them.
 */
export function accountInfo(server: MonitoredServer, name: string) {
  const account = server.accounts.get(name);
  if (!account) throw new QueryError(`Account ${name} does not exist`);
  const sublist = account.router.sublist;
  const exports = [
    ...account.serviceExports.map((e) => ({
      subject: e.subject,
      type: 'service',
      response_type: RESPONSE_TYPES[e.responses.type],
      ...approved(e),
    })),
    ...account.streamExports.map((e) => ({ subject: e.subject, type: 'stream', ...approved(e) })),
  ];
  const flags = { invalid: false, share: false, tracking: false };
  const imports = [
    ...account.streamImports.map((i) => ({
      subject: i.from,
      account: i.exporter.name,
      local_subject: i.to,
      type: 'stream',
      ...flags,
    })),
    ...account.serviceImports.map((i) => ({
      subject: i.from,
      account: i.exporter.name,
      to: i.to,
      type: 'service',
      ...flags,
    })),
  ];
  const mappings = account.mappings?.list ?? [];
  return {
    account_name: name,
    update_time: rfc3339(server.startedAt),
    ...(account === server.accounts.system ? { is_system: true } : {}),
    expired: false,
    complete: true,
    jetstream_enabled: server.jetstream?.accounts.has(name) ?? false,
    leafnode_connections: server.leafNodes?.views(name).length ?? 0,
    client_connections: account.connections,
    subscriptions: sublist.count,
    ...(mappings.length > 0
      ? { mappings: Object.fromEntries(mappings.map((m) => [m.source, mapDests(m)])) }
      : {}),
    ...(exports.length > 0 ? { exports } : {}),
    ...(imports.length > 0 ? { imports } : {}),
    sublist_stats: sublist.stats(),
  };
}

/** nats-server's names of the response types. */
const RESPONSE_TYPES = { singleton: 'Singleton', stream: 'Stream', chunked: 'Chunked' } as const;

/** The accounts an export is restricted to, if it is. */
function approved(e: Export) {
  return e.accounts && e.accounts.size > 0 ? { approved_accounts: [...e.accounts] } : {};
}

/**
 * A mapping's destinations as nats-server lists them (its MapDest): in the order of the draw,
 * each weight added up with those before it, and the source itself, where it takes the rest of
 * the publishes, written with `$1`, `$2` ... for its wildcards.
 */
function mapDests(mapping: { source: string; destinations: MappingDestination[] }) {
  let upTo = 0;
  return mapping.destinations.map(({ destination, weight }) => {
    upTo += weight;
    let n = 0;
    const subject =
      destination === mapping.source
        ? destination
            .split('.')
            .map((token) => (token === '*' ? `$${++n}` : token))
            .join('.')
        : destination;
    return { subject, weight: upTo };
  });
}
