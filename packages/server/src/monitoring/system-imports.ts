import type { Account } from '../accounts/account.js';
import { DEFAULT_RESPONSE_THRESHOLD } from '../accounts/service-responses.js';
import { importUserInfo } from './user-info.js';

/**
 * The system account's services nats-server 2.11 imports into every other account: a client
 * there asks `$SYS.REQ.SERVER.PING.CONNZ` or `$SYS.REQ.ACCOUNT.PING.CONNZ` and gets the
 * connections of its own account, `$SYS.REQ.ACCOUNT.PING.STATZ` and gets its account's stats;
 * `$SYS.REQ.USER.INFO` (user-info.ts), the only one the system account imports from itself too.
 */
export function importSystemServices(account: Account, system: Account, serverId: string): void {
  importUserInfo(account, system, serverId);
  if (account === system) return;
  const own = (name: string) => `$SYS.REQ.ACCOUNT.${account.name}.${name}`;
  const imports = [
    { local: '$SYS.REQ.SERVER.PING.CONNZ', exported: own('CONNZ') },
    { local: '$SYS.REQ.ACCOUNT.PING.CONNZ', exported: own('CONNZ') },
    { local: '$SYS.REQ.ACCOUNT.PING.STATZ', exported: own('STATZ') },
  ];
  for (const { local, exported } of imports) {
    account.importService(system, exported, local, {
      type: 'stream',
      threshold: DEFAULT_RESPONSE_THRESHOLD,
    });
  }
}
