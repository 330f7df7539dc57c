import type { Account } from '../accounts/account.js';
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';

/**
 * nats-server's AccountStat: an account's client and leaf connections and traffic, as its
 * SERVER.CONNS events, STATZ answers and /accstatz carry it.
 */
export function accountStat(server: MonitoredServer, account: Account) {
  const { sent, received } = account.traffic();
  const leafnodes = server.leafNodes?.views(account.name).length ?? 0;
  return {
    acc: account.name,
    conns: account.connections,
    leafnodes,
    total_conns: account.connections + leafnodes,
    sent,
    received,
    slow_consumers: 0,
  };
}

export interface AccountStatzOptions {
  /** These accounts only; all when empty. */
  accounts?: readonly string[];
  /** Accounts without connections too. */
  includeUnused?: boolean;
}

/** /accstatz (and the STATZ requests): the stats of the accounts asked, those in use unless told. */
export function accountStatz(server: MonitoredServer, options: AccountStatzOptions = {}) {
  const accounts =
    options.accounts && options.accounts.length > 0
      ? options.accounts.flatMap((name) => server.accounts.get(name) ?? [])
      : [...server.accounts.values()];
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    // In use means client connections, as nats-server's numLocalConnections (leaves not counted).
    account_statz: accounts
      .filter((account) => options.includeUnused || account.connections > 0)
      .map((account) => accountStat(server, account)),
  };
}
