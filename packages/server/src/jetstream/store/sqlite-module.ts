import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

let loaded: typeof BetterSqlite3 | undefined;

/**
 * better-sqlite3, loaded when a file stream first needs it: its JavaScript (a dozen CommonJS
 * modules, resolved one by one) was ~20 ms of a start with JetStream on, which a server with no
 * file stream stored spent before its first INFO for nothing.
 */
export function sqlite(): typeof BetterSqlite3 {
  loaded ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return loaded;
}
