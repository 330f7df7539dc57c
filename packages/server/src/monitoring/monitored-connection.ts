import type { Account } from '../accounts/account.js';
import type { UserPermissions } from '../auth/permissions.js';
import type { CloseReason } from '../errors.js';
import type { Subscriber, Subscription } from '../subscription.js';

/**
 * A client connection as the monitoring pages and the system account's events read it
 * (ClientConnection implements it): who it is, its counters, its subscriptions, how it ended.
 */
export interface MonitoredConnection extends Subscriber {
  readonly ip: string;
  readonly port: number;
  readonly startedAt: number;
  readonly lastActivity: number;
  readonly stoppedAt: number | undefined;
  readonly closeReason: CloseReason | undefined;
  readonly closed: boolean;
  readonly outbound: { readonly pendingBytes: number };
  readonly inMsgs: number;
  readonly outMsgs: number;
  readonly inBytes: number;
  readonly outBytes: number;
  readonly name: string;
  readonly lang: string;
  readonly version: string;
  readonly user: string | undefined;
  /** The authenticated user's permissions as configured, for `$SYS.REQ.USER.INFO`. */
  readonly userPermissions: UserPermissions | undefined;
  /** When the user's credentials expire (ms since the epoch), if they do. */
  readonly expiresAt: number | undefined;
  readonly account: Account;
  readonly tls: { version: string; cipherSuite: string } | undefined;
  readonly subscriptions: ReadonlyMap<string, Subscription>;
}
