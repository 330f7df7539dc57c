/**
 * The duplicate window of a stream: `Nats-Msg-Id` to the sequence it was stored at, for
 * `duplicate_window`. Ids are kept in arrival order, which is time order, so expired ones are
 * dropped from the front as new ones arrive: no timer, no scan.
 */
import { headerValue } from '../shared/header-block.js';
import type { MessageStore, StoredMessage } from '../store/message-store.js';

const MSG_ID_HEADER = 'Nats-Msg-Id';

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

  /**
   * Rebuilds the window from the messages of `store` still inside it (`windowNanos` back from
   * now), after a restart. Returns the id of the store's last message ('' for none), which
   * `Nats-Expected-Last-Msg-Id` is compared with; a damaged message counts as none.
   */
  recover(store: MessageStore, windowNanos: bigint): string {
    if (store.state().messages === 0) return '';
    const since = store.seqFromTime(BigInt(Date.now()) * 1_000_000n - windowNanos);
    for (let seq = since; ; seq++) {
      const message = quietly(() => store.loadNext('', seq));
      if (!message) break;
      seq = message.seq;
      const id = message.headers && headerValue(message.headers, MSG_ID_HEADER);
      if (id) this.record(id, message.seq, Number(message.time / 1_000_000n));
    }
    const last = quietly(() => store.loadLast(''));
    return (last?.headers && headerValue(last.headers, MSG_ID_HEADER)) || '';
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

function quietly(load: () => StoredMessage | undefined): StoredMessage | undefined {
  try {
    return load();
  } catch {
    return undefined;
  }
}
