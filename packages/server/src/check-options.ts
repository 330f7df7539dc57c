import { Accounts } from './accounts/accounts.js';
import { Authenticator } from './auth/authenticator.js';
import { resolveOptions, type ServerOptions } from './options.js';
import { secureContextFor } from './tls/secure-context.js';

/**
 * Throws the ServerError (INVALID_OPTION) that startServer would reject these options with, without
 * starting anything: for a config test (`-t`) to fail where the start would.
 */
export function checkOptions(options: ServerOptions): void {
  const resolved = resolveOptions(options);
  new Accounts(resolved.accounts, resolved.systemAccount, resolved.mappings).close();
  // The certificate, key and cipher suite names are checked by building the TLS context.
  if (resolved.tls) secureContextFor(resolved.tls);
  if (Authenticator.required(resolved.authorization, resolved.accounts)) {
    new Authenticator(resolved.authorization, resolved.noAuthUser, resolved.accounts);
  }
}
