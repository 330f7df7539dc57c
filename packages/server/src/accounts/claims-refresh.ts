import { type CloseReason, ErrText } from '../errors.js';
import type { JetStreamServer } from '../jetstream/jetstream-server.js';
import { importSystemServices } from '../monitoring/system-imports.js';
import { timerDelay } from '../timer-delay.js';
import type { Account } from './account.js';
import type { Accounts } from './accounts.js';
import type { TrustedAccounts } from './trusted-accounts.js';

/**
 * Keeps the running accounts in step with the trusted claims: applies an account's pushed JWT
 * (see {@link applyAccountClaims}), and sets the accounts up again when an import's activation
 * token expires, so the import stops, as nats-server's activationExpired invalidates it.
 */
export class ClaimsRefresh {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly server: ClaimsHost,
    private readonly trusted: TrustedAccounts,
  ) {
    this.#watchActivations();
  }

  /** The account's claims were updated. */
  accountChanged(account: string): void {
    applyAccountClaims(this.server, this.trusted, account);
    this.server.accountsAdded();
    this.#watchActivations();
  }

  close(): void {
    clearTimeout(this.#timer);
  }

  #watchActivations(): void {
    clearTimeout(this.#timer);
    const at = this.trusted.nextActivationExpiry();
    if (at === undefined) return;
    this.#timer = setTimeout(
      () => {
        reshareAccounts(this.server.accounts, this.trusted);
        this.#watchActivations();
      },
      timerDelay(at - Date.now()),
    );
    this.#timer.unref();
  }
}

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
    if (reset) importSystemServices(reset, system, accounts.serverId);
  }
}

/** A client connection as new claims for its account change it (a ClientConnection). */
export interface ClaimsMember {
  readonly cid: number;
  readonly startedAt: number;
  readonly closed: boolean;
  readonly account: Account;
  close(reason: CloseReason, errText?: string): void;
  /** Re-reads its user's standing under the account's new claims. */
  claimsChanged(): void;
}

/** The parts of the running server new account claims change. */
export interface ClaimsHost {
  readonly accounts: Accounts;
  readonly clients: ReadonlyMap<number, ClaimsMember>;
  readonly jetstream: JetStreamServer | undefined;
  /** Serves JetStream (or its disabled answers) in the accounts added. */
  accountsAdded(): void;
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
