/**
 * The duplicate window of a stream: `Nats-Msg-Id` to the sequence it was stored at, for
 * `duplicate_window`. Ids are kept in arrival order, which is time order, so expired ones are
 * dropped from the front as new ones arrive: no timer, no scan.
 */
export class DuplicateWindow {
  readonly #ids = new Map<string, { seq: number; at: number }>();

  constructor(private windowMs: number) {}

  set window(ms: number) {
    this.windowMs = ms;
  }

  /** The sequence a message with this id was stored at, if inside the window. */
  seqOf(id: string, now = Date.now()): number | undefined {
    this.#expire(now);
    return this.#ids.get(id)?.seq;
  }

  record(id: string, seq: number, at = Date.now()): void {
    this.#ids.delete(id);
    this.#ids.set(id, { seq, at });
    this.#expire(at);
  }

  clear(): void {
    this.#ids.clear();
  }

  #expire(now: number): void {
    const cutoff = now - this.windowMs;
    for (const [id, entry] of this.#ids) {
      if (entry.at > cutoff) break;
      this.#ids.delete(id);
    }
  }
}
