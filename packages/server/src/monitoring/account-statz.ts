import type { ClientConnection } from '../client-connection.js';
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';

export interface DataStats {
  msgs: number;
  bytes: number;
}

/**
 * Each account's traffic from the connections that have left it, so its statz (nats-server's
 * account counters, which outlive connections) keeps counting what they sent and received.
 */
export class AccountTraffic {
  readonly #closed = new Map<string, { received: DataStats; sent: DataStats }>();

  /** A connection closed: what it sent and received stays with its account. */
  closed(client: ClientConnection): void {
    const totals = this.#totals(client.account.name);
    totals.received.msgs += client.inMsgs;
    totals.received.bytes += client.inBytes;
    totals.sent.msgs += client.outMsgs;
    totals.sent.bytes += client.outBytes;
  }

  /** The traffic of `account`'s closed connections plus its open ones. */
  of(server: MonitoredServer, account: string): { received: DataStats; sent: DataStats } {
    const closed = this.#closed.get(account);
    const received = { msgs: closed?.received.msgs ?? 0, bytes: closed?.received.bytes ?? 0 };
    const sent = { msgs: closed?.sent.msgs ?? 0, bytes: closed?.sent.bytes ?? 0 };
    for (const client of server.clients.values()) {
      if (client.account.name !== account) continue;
      received.msgs += client.inMsgs;
      received.bytes += client.inBytes;
      sent.msgs += client.outMsgs;
      sent.bytes += client.outBytes;
    }
    return { received, sent };
  }

  #totals(account: string) {
    let totals = this.#closed.get(account);
    if (!totals) {
      totals = { received: { msgs: 0, bytes: 0 }, sent: { msgs: 0, bytes: 0 } };
      this.#closed.set(account, totals);
    }
    return totals;
  }
}

/**
 * nats-server's AccountStat: an account's client connections (leaf nodes: none here) and
 * traffic, as its SERVER.CONNS events, STATZ answers and /accstatz carry it.
 */
export function accountStat(server: MonitoredServer, name: string) {
  const conns = server.accounts.get(name)?.connections ?? 0;
  const { sent, received } = server.accountTraffic.of(server, name);
  return {
    acc: name,
    conns,
    leafnodes: 0,
    total_conns: conns,
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
  const names =
    options.accounts && options.accounts.length > 0
      ? options.accounts.filter((name) => server.accounts.get(name) !== undefined)
      : [...server.accounts.values()].map((account) => account.name);
  const inUse = (name: string) =>
    options.includeUnused || (server.accounts.get(name)?.connections ?? 0) > 0;
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    account_statz: names.filter(inUse).map((name) => accountStat(server, name)),
  };
}
