import type { InternalClient, InternalMessage } from '../internal-client.js';
import type { TrustedAccounts } from './trusted-accounts.js';

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
    // The cache resolver's answers name it, as nats-server's CacheDirAccResolver does.
    const cache = trusted.caches;
    if ('error' in result) {
      const failed = cache ? 'jwt update cache resulted in error' : 'jwt update resulted in error';
      const description = `${failed} - ${result.error}`;
      reply(message.reply, { error: { ...named, code: FAILED, description } });
    } else {
      const text = result.updated
        ? cache
          ? 'jwt updated cache'
          : 'jwt updated'
        : cache
          ? 'jwt update cache skipped'
          : 'jwt update skipped';
      reply(message.reply, { data: { ...named, code: OK, message: text } });
    }
  };
  for (const subject of ['$SYS.REQ.ACCOUNT.*.CLAIMS.UPDATE', '$SYS.ACCOUNT.*.CLAIMS.UPDATE']) {
    client.subscribe(subject, (m) => handle(m, m.subject.split('.').at(-3)));
  }
  if (trusted.stores) client.subscribe('$SYS.REQ.CLAIMS.UPDATE', (m) => handle(m, undefined));
}
