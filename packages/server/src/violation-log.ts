import type { Logger } from './logger.js';

/** Reports logged per window; past this they are counted, not written. */
const REPORTS_PER_WINDOW = 20;
const WINDOW_MS = 1_000;

/**
 * Error-level lines about misbehaving clients (protocol violations, bad CONNECTs, failed
 * authentication), which operators read to find abusive clients, as nats-server logs them. A
 * flood of bad connections must not fill the disk, so at most REPORTS_PER_WINDOW lines are
 * written per second; the rest are counted and summed up in one line when the window ends.
 */
export class ViolationLog {
  readonly #logger: Logger;
  #windowStart = 0;
  #written = 0;
  #suppressed = 0;
  #summary: NodeJS.Timeout | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** `label` names the connection (`ip:port - cid:N`). */
  report(label: string, message: string): void {
    const now = Date.now();
    if (now - this.#windowStart >= WINDOW_MS) {
      this.#windowStart = now;
      this.#written = 0;
    }
    if (this.#written < REPORTS_PER_WINDOW) {
      this.#written++;
      this.#logger.error(`${label} - ${message}`);
      return;
    }
    this.#suppressed++;
    if (this.#summary === undefined) {
      this.#summary = setTimeout(this.#writeSummary, this.#windowStart + WINDOW_MS - now);
      // A pending summary line must not keep an embedding process alive.
      this.#summary.unref();
    }
  }

  /** Writes the pending summary at once (the server is stopping). */
  flush(): void {
    if (this.#summary === undefined) return;
    clearTimeout(this.#summary);
    this.#writeSummary();
  }

  readonly #writeSummary = (): void => {
    this.#summary = undefined;
    const count = this.#suppressed;
    this.#suppressed = 0;
    this.#logger.error(
      `${count} more client error${count === 1 ? '' : 's'} not logged (at most ${REPORTS_PER_WINDOW} a second)`,
    );
  };
}
