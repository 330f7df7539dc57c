import type { InternalClient, InternalMessage } from '../internal-client.js';
import type { ClaimsUpdate, TrustedAccounts } from './trusted-accounts.js';

/** Sends a system account answer (the server's identity is added to `body`). */
export type SystemReply = (subject: string, body: object) => void;

const OK = 200;
const FAILED = 500;

/**
 * Serves account JWT pushes in the system account, as nats-server 2.9.10 does:
 * `$SYS.REQ.ACCOUNT.<account>.CLAIMS.UPDATE` and the older `$SYS.ACCOUNT.<account>.CLAIMS.UPDATE`
 * for any resolver, and `$SYS.REQ.CLAIMS.UPDATE` (account taken from the JWT) for the full and
 * cache resolvers. The answer is nats-server's `{ data: { account, code: 200, message } }` or
 * `{ error: { account, code: 500, description } }`, whose texts name the cache resolver's.
 * `updated` applies taken claims to the running server.
 */
export function serveClaimsUpdates(
  client: InternalClient,
  trusted: TrustedAccounts,
  reply: SystemReply,
  updated: (account: string) => void,
): void {
  const handle = (message: InternalMessage, account: string | undefined) => {
    const jwt = Buffer.from(message.payload).toString('utf8').trim();
    const result = jwt ? trusted.update(jwt, account) : { error: 'request body is empty' };
    if ('updated' in result && result.updated && result.account) updated(result.account);
    if (!message.reply) return;
    const named = 'account' in result ? { account: result.account } : account ? { account } : {};
    const description = failure(trusted, result);
    if (description !== undefined) {
      reply(message.reply, { error: { ...named, code: FAILED, description } });
      return;
    }
    const updatedText = trusted.caches ? 'jwt updated cache' : 'jwt updated';
    const skippedText = trusted.caches ? 'jwt update cache skipped' : 'jwt update skipped';
    const text = 'updated' in result && result.updated ? updatedText : skippedText;
    reply(message.reply, { data: { ...named, code: OK, message: text } });
  };
  for (const subject of ['$SYS.REQ.ACCOUNT.*.CLAIMS.UPDATE', '$SYS.ACCOUNT.*.CLAIMS.UPDATE']) {
    client.subscribe(subject, (m) => handle(m, m.subject.split('.').at(-3)));
  }
  if (trusted.stores) client.subscribe('$SYS.REQ.CLAIMS.UPDATE', (m) => handle(m, undefined));
}

/**
 * The error text of an update that was not taken, in each resolver's words as nats-server's:
 * the cache resolver names itself; a JWT failing validation is listed by the full and cache
 * resolvers (`jwt validation failed - validation errors: [...]`) and is just an invalid account
 * to the others.
 */
function failure(trusted: TrustedAccounts, result: ClaimsUpdate): string | undefined {
  const cache = trusted.caches;
  if ('error' in result) {
    return `${cache ? 'jwt update cache resulted in error' : 'jwt update resulted in error'} - ${result.error}`;
  }
  if (!('invalid' in result)) return undefined;
  if (!trusted.stores) return 'jwt update resulted in error - account validation failed';
  const failed = cache ? 'jwt update cache validation failed' : 'jwt validation failed';
  return `${failed} - validation errors: [${result.invalid.join(' ')}]`;
}
