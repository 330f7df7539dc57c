/**
 * `$SYS.REQ.USER.INFO`, as nats-server 2.11 answers it: every account imports it from the
 * system account (the system account from itself) as `$SYS.REQ.USER.<account>.INFO`, sharing
 * the requester's details in the Nats-Request-Info header, and the answer tells the requesting
 * user who it is: its name, its account, its permissions and how long its credentials last.
 */
import type { Account } from '../accounts/account.js';
import { DEFAULT_RESPONSE_THRESHOLD } from '../accounts/service-responses.js';
import type { UserPermissions } from '../auth/permissions.js';
import { headerValue } from '../jetstream/shared/header-block.js';
import type { MonitoredServer } from './monitored-server.js';

/** The subject the system account serves, one account a token. */
export const USER_INFO_REQUESTS = '$SYS.REQ.USER.*.INFO';

/** Imports the request into `account`, mapped to its own subject with the requester shared. */
export function importUserInfo(account: Account, system: Account, serverId: string): void {
  account.importService(
    system,
    `$SYS.REQ.USER.${account.name}.INFO`,
    '$SYS.REQ.USER.INFO',
    { type: 'singleton', threshold: DEFAULT_RESPONSE_THRESHOLD },
    undefined,
    { serverId },
  );
}

/**
 * nats-server's UserInfo for the client the request's Nats-Request-Info header names (user and
 * account empty when there is none, as for a request published straight on the account's
 * subject); an Error when the header does not decode.
 */
export function userInfo(server: MonitoredServer, headers: Uint8Array | undefined) {
  const header = headers && headerValue(headers, 'Nats-Request-Info');
  let requester: { id?: number; acc?: string; user?: string } = {};
  try {
    if (header) requester = JSON.parse(header);
  } catch (error) {
    return error as Error;
  }
  const client = requester.id === undefined ? undefined : server.clients.get(requester.id);
  const permissions = client?.userPermissions;
  const expiresIn = client?.expiresAt === undefined ? 0 : client.expiresAt - Date.now();
  return {
    user: requester.user ?? '',
    account: requester.acc ?? '',
    ...(permissions ? { permissions: publicPermissions(permissions) } : {}),
    // A Go duration in nanoseconds, cut to whole seconds; left out when the user never expires.
    ...(expiresIn >= 1000 ? { expires: Math.floor(expiresIn / 1000) * 1e9 } : {}),
  };
}

/** nats-server's public view of a user's permissions: the subjects of each list, no queues. */
function publicPermissions(permissions: UserPermissions) {
  type Rules = readonly { subject: string }[] | undefined;
  const list = (allow: Rules, deny: Rules) => {
    const [allowed, denied] = [allow, deny].map((rules) => rules?.map((rule) => rule.subject));
    // Go leaves out an empty list.
    return {
      ...(allowed?.length ? { allow: allowed } : {}),
      ...(denied?.length ? { deny: denied } : {}),
    };
  };
  const { responses } = permissions;
  return {
    publish: list(permissions.publishAllow, permissions.publishDeny),
    subscribe: list(permissions.subscribeAllow, permissions.subscribeDeny),
    ...(responses ? { responses: { max: responses.max, ttl: responses.expires * 1e6 } } : {}),
  };
}
