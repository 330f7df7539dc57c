import type { Accounts } from '../accounts/accounts.js';
import { reshareAccounts } from '../accounts/claims-refresh.js';
import type { ResolvedOptions } from '../options.js';
import { Authenticator } from './authenticator.js';
import { JwtAuthenticator } from './jwt-authenticator.js';

/** What checks a client's CONNECT: operator mode's JWT login, or the configured users. */
export type ClientAuthenticator = Authenticator | JwtAuthenticator;

/** The server's authenticator; undefined when clients need no credentials. */
export function clientAuthenticator(
  options: ResolvedOptions,
  accounts: Accounts,
  /** Operator mode: the URL resolver added accounts, which the server serves now. */
  accountsAdded: () => void,
): ClientAuthenticator | undefined {
  if (options.operator) {
    const trusted = options.operator;
    return new JwtAuthenticator(
      trusted,
      (name) => accounts.get(name) !== undefined,
      () => {
        reshareAccounts(accounts, trusted);
        accountsAdded();
      },
    );
  }
  if (!Authenticator.required(options.authorization, options.accounts)) return undefined;
  return new Authenticator(options.authorization, options.noAuthUser, options.accounts);
}
