import type { DashboardConfig } from '../api.js';
import type { Live } from '../live.js';

/** What a page is drawn with. */
export interface PageContext {
  readonly root: HTMLElement;
  readonly live: Live;
  readonly config: DashboardConfig;
  /** The route's parts after the page's name (`#/stream/$G/ORDERS` → `['$G', 'ORDERS']`). */
  readonly args: readonly string[];
  /** Called when the page is left: its listeners are dropped through this. */
  onLeave(cleanup: () => void): void;
}

export type Page = (context: PageContext) => void;
