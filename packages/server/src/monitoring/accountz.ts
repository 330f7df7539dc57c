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
 * complete, updated when the server started. Its service imports are listed, the system
 * account's among them; its exports, stream imports and mappings are not (yet).
 */
export function accountInfo(server: MonitoredServer, name: string) {
  const account = server.accounts.get(name);
  if (!account) throw new QueryError(`Account ${name} does not exist`);
  const sublist = account.router.sublist;
  const imports = account.serviceImports.map((i) => ({
    subject: i.from,
    account: i.exporter.name,
    to: i.to,
    type: 'service',
    invalid: false,
    share: false,
    tracking: false,
  }));
  return {
    account_name: name,
    update_time: rfc3339(server.startedAt),
    ...(account === server.accounts.system ? { is_system: true } : {}),
    expired: false,
    complete: true,
    jetstream_enabled: server.jetstream?.accounts.has(name) ?? false,
    leafnode_connections: 0,
    client_connections: account.connections,
    subscriptions: sublist.count,
    ...(imports.length > 0 ? { imports } : {}),
    sublist_stats: sublist.stats(),
  };
}
