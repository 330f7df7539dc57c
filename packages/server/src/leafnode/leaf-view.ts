import type { LinkTrafficView } from '../interserver/link-view.js';
import type { ResolvedLeafNodeOptions } from './leaf-options.js';

/**
 * What monitoring reads of the leaf nodes (/leafz, /varz), apart from the class that runs them,
 * so the monitoring code depends on no connection or login code.
 */
export interface MonitoredLeafNodes {
  /** Registered connections, in either role. */
  readonly count: number;
  /** The bound leaf node port, when one is open. */
  readonly port: number | undefined;
  readonly host: string;
  readonly settings: ResolvedLeafNodeOptions;
  /** The registered connections, optionally of one account only. */
  views(account?: string, withSubscriptions?: boolean): LeafView[];
}
/** One leaf connection as /leafz shows it (nats-server 2.9.10's LeafInfo). */
export interface LeafView extends LinkTrafficView {
  readonly account: string;
  readonly ip: string;
  readonly port: number;
  readonly rtt: number | undefined;
}
