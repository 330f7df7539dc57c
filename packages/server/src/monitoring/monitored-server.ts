import type { ServerInfo } from '@slipstream/protocol';
import type { Account } from '../accounts/account.js';
import type { Accounts } from '../accounts/accounts.js';
import type { InternalClient } from '../internal-client.js';
import type { JetStreamServer } from '../jetstream/jetstream-server.js';
import type { MonitoredLeafNodes } from '../leafnode/leaf-view.js';
import type { ResolvedOptions } from '../options.js';
import type { MonitoredRoutes } from '../route/route-view.js';
import type { ServerIdentity } from '../server-identity.js';
import type { TrafficStats } from '../traffic-stats.js';
import type { ConnectionState } from './connection-state.js';
import type { MonitoredConnection } from './monitored-connection.js';

/** What the monitoring endpoints read from the server. */
export interface MonitoredServer {
  readonly serverId: string;
  readonly info: Readonly<ServerInfo>;
  readonly options: ResolvedOptions;
  readonly startedAt: number;
  readonly stats: TrafficStats;
  readonly totalConnections: number;
  readonly clients: ReadonlyMap<number, MonitoredConnection>;
  /** Oldest first, bounded. */
  readonly closedConnections: readonly ConnectionState[];
  readonly accounts: Accounts;
  readonly httpPort: number | undefined;
  /** JetStream, when enabled and started. */
  readonly jetstream: JetStreamServer | undefined;
  /** Leaf node connections, when configured. */
  readonly leafNodes: MonitoredLeafNodes | undefined;
  /** Routes to the other members of a cluster, when configured. */
  readonly routes: MonitoredRoutes | undefined;
  /** Name, host, id and JetStream, as the server's events carry them. */
  identity(): ServerIdentity;
  /** A new client of the server itself in `account`'s subject space (the dashboard's JetStream API). */
  internalClient(account: Account): InternalClient;
}
