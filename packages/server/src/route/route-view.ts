import type { LinkTrafficView } from '../interserver/link-view.js';
import type { ResolvedClusterOptions } from './route-options.js';

/**
 * What monitoring reads of the routes (/routez, /varz), apart from the class that runs them, so
 * the monitoring code depends on no connection code.
 */
export interface MonitoredRoutes {
  /** Registered routes. */
  readonly count: number;
  /** The bound route port. */
  readonly port: number | undefined;
  readonly host: string;
  readonly name: string;
  readonly settings: ResolvedClusterOptions;
  views(withSubscriptions?: boolean): RouteView[];
}

/** One registered route as /routez shows it (nats-server 2.9.10's RouteInfo). */
export interface RouteView extends LinkTrafficView {
  readonly rid: number;
  readonly remoteId: string;
  /** The other member's server name (its id when it has none). */
  readonly remoteName: string;
  readonly didSolicit: boolean;
  readonly isConfigured: boolean;
  readonly ip: string;
  readonly port: number;
  readonly start: number;
  readonly lastActivity: number;
  readonly rtt: number | undefined;
  readonly pendingSize: number;
  readonly permissions: { import?: unknown; export?: unknown };
}
