import type { Accounts } from '../accounts/accounts.js';
import type { InterserverHost } from './interserver-connection.js';

/** What the routes and the leaf nodes alike need of the server. */
export interface InterserverServer extends InterserverHost {
  readonly accounts: Accounts;
  readonly serverId: string;
  readonly options: InterserverHost['options'] & {
    readonly host: string;
    readonly maxPayload: number;
    readonly authTimeout: number;
  };
  newCid(): number;
}
