import type { ClientConnection } from '../client-connection.js';
import { ErrText } from '../errors.js';
import type { JetStreamServer } from '../jetstream/jetstream-server.js';
import { importSystemServices } from '../monitoring/system-imports.js';
import type { Accounts } from './accounts.js';
import type { TrustedAccounts } from './trusted-accounts.js';

/**
 * Sets up the accounts anew from the trusted claims: new ones added, every export and import
 * again (each with the system services it imports, as nats-server registers them again), and
 * their limits.
 */
export function reshareAccounts(accounts: Accounts, trusted: TrustedAccounts): void {
  const system = accounts.system;
  const options = trusted.accountOptions(system.name);
  accounts.reconfigure(options);
  for (const name of Object.keys(options)) {
    const reset = accounts.get(name);
    if (reset && reset !== system) importSystemServices(reset, system);
  }
}

/** The parts of the running server new account claims change. */
export interface ClaimsHost {
  readonly accounts: Accounts;
  readonly clients: ReadonlyMap<number, ClientConnection>;
  readonly jetstream: JetStreamServer | undefined;
}

/**
 * Applies an account's new claims to the running server, as nats-server's updateAccountClaims:
 * every trusted account's exports and imports are set up again from the claims (so a changed
 * export reaches its importers at once), each with the system services it imports, and the
 * accounts take their limits, JetStream's too. Of the account's clients, those beyond its
 * connection limit are closed (nats-server keeps the newest), and the rest re-read their user's
 * standing.
 */
export function applyAccountClaims(
  server: ClaimsHost,
  trusted: TrustedAccounts,
  account: string,
): void {
  const { accounts, jetstream } = server;
  reshareAccounts(accounts, trusted);
  for (const [name, limits] of accounts.jetStream) {
    const js = jetstream?.accounts.get(name);
    if (js) js.limits = limits;
  }
  const updated = accounts.get(account);
  if (!updated) return;
  const members = [...server.clients.values()]
    .filter((client) => client.account === updated && !client.closed)
    .sort((a, b) => b.startedAt - a.startedAt || b.cid - a.cid);
  const max = updated.maxConnections;
  for (const [i, client] of members.entries()) {
    if (max > 0 && i >= max) {
      client.close('Maximum Account Connections Exceeded', ErrText.maxAccountConnections);
    } else {
      client.claimsChanged();
    }
  }
}
