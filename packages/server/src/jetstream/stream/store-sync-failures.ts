/**
 * Streams whose store failed a sync that nobody waited for (lazy mode, `sync_interval` set: the
 * background sync of the WAL, the interval's checkpoint). No publisher hears of such a failure,
 * so it is logged at error level and kept on the list /healthz reads (503) until the server
 * restarts: a later sync that succeeds proves nothing of the earlier data, since Linux may drop
 * the dirty pages of a failed fsync and report the next one clean.
 */
import type { Logger } from '../../logger.js';
import type { StreamDamage } from './stream-damage.js';

export class StoreSyncFailures {
  #found: StreamDamage[] = [];

  constructor(
    private readonly account: string,
    private readonly logger: Logger,
  ) {}

  get found(): readonly StreamDamage[] {
    return this.#found;
  }

  /** A stream's store failed to sync: logged and listed once a stream. */
  failed(stream: string, error: Error): void {
    if (this.#found.some((failure) => failure.stream === stream)) return;
    const what = `its store failed to sync to disk (${error.message}): messages acknowledged since its last sync may be lost if the machine loses power`;
    this.#found.push({ stream, error: what });
    this.logger.error(`JetStream stream '${this.account} > ${stream}': ${what}`);
  }

  /** A deleted stream's failure goes with it. */
  forget(stream: string): void {
    this.#found = this.#found.filter((failure) => failure.stream !== stream);
  }
}
