/**
 * Feeds a stream from another stream of the same account: its mirror (messages copied at their
 * own sequence and time) or one of its sources (messages appended, marked with a
 * `Nats-Stream-Source: <origin> <seq>` header). A feed catches up from where the stream left
 * off, then follows its origin's appends; an origin that does not exist yet (or was deleted)
 * is looked for again every second.
 */
import type { StreamSource } from '@slipstream/jsapi';
import { headerValue, withHeaders, withoutHeader } from './header-block.js';
import type { StoredMessage } from './store/message-store.js';
import type { Stream } from './stream.js';
import { firstMatchingTransform, type SubjectTransform } from './subject-transform.js';
import { nowNanos } from './wire-time.js';

/** What an origin tells the streams that follow it. */
export interface StreamWatcher {
  appended(): void;
  closed(): void;
}

/** The target side of a feed: how copied messages go into the stream it feeds. */
export interface FeedTarget {
  readonly name: string;
  readonly lastSeq: number;
  /** The newest message of the stream carrying a source header, scanning back from the end. */
  findLast(match: (message: StoredMessage) => boolean): StoredMessage | undefined;
  storeMirrored(message: StoredMessage): void;
  storeSourced(subject: string, headers: Uint8Array, payload: Uint8Array): void;
}

const RETRY_MS = 1_000;
/** Messages copied per event-loop turn, so a large catch-up does not hold the loop. */
const BATCH = 512;
export const SOURCE_HEADER = 'Nats-Stream-Source';

export class OriginFeed {
  #origin: Stream | undefined;
  #unwatch: (() => void) | undefined;
  #retry: NodeJS.Timeout | undefined;
  #scheduled: NodeJS.Immediate | undefined;
  /** The next origin sequence to copy; 0 until the starting point is known. */
  #next = 0;
  #lag = 0;
  #lastActive = 0n;
  #stopped = false;
  /** Its `subject_transforms`: also a filter, a message matching none of them is not copied. */
  readonly #transform: SubjectTransform | undefined;

  constructor(
    private readonly target: FeedTarget,
    private readonly source: StreamSource,
    private readonly kind: 'mirror' | 'source',
    private readonly lookup: (name: string) => Stream | undefined,
  ) {
    const transforms = source.subject_transforms ?? [];
    this.#transform = transforms.length > 0 ? firstMatchingTransform(transforms) : undefined;
  }

  get name(): string {
    return this.source.name;
  }

  start(): void {
    this.#attach();
  }

  stop(): void {
    this.#stopped = true;
    this.#detach();
    clearTimeout(this.#retry);
  }

  /** `{name, lag, active}` as stream info reports a mirror or source. */
  info() {
    const active = this.#origin ? Number(nowNanos() - this.#lastActive) : -1;
    return { name: this.source.name, lag: this.#lag, active };
  }

  #attach(): void {
    if (this.#stopped) return;
    const origin = this.lookup(this.source.name);
    if (!origin) {
      this.#retry = setTimeout(() => this.#attach(), RETRY_MS);
      this.#retry.unref();
      return;
    }
    this.#origin = origin;
    this.#lastActive = nowNanos();
    this.#unwatch = origin.watch({
      // Caught up: copy now, inside the origin's append (see Stream #ingest on interest
      // retention); otherwise the catch-up already scheduled will reach it.
      appended: () => {
        if (!this.#scheduled) this.#pump();
      },
      closed: () => {
        this.#detach();
        this.#attach();
      },
    });
    if (this.#next === 0) this.#next = this.#startingSeq(origin);
    this.#schedule();
  }

  #detach(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#origin = undefined;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
  }

  #schedule(): void {
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = undefined;
      this.#pump();
    });
  }

  #pump(): void {
    const origin = this.#origin;
    if (!origin) return;
    const filter = this.source.filter_subject ?? '';
    let copied = 0;
    while (copied < BATCH) {
      let message: StoredMessage | undefined;
      try {
        message = origin.store.loadNext(filter, this.#next);
      } catch {
        // A damaged origin message is not copied: skip it (the origin reports it).
        this.#next++;
        continue;
      }
      if (!message) break;
      this.#copy(message);
      this.#next = message.seq + 1;
      copied++;
    }
    this.#lastActive = nowNanos();
    this.#lag = origin.store.numPending(this.#next, filter, false);
    if (this.#lag > 0) this.#schedule();
  }

  #copy(message: StoredMessage): void {
    const subject = this.#transform ? this.#transform(message.subject) : message.subject;
    if (subject === undefined) return;
    if (this.kind === 'mirror') {
      if (message.seq > this.target.lastSeq) this.target.storeMirrored({ ...message, subject });
      return;
    }
    const headers = withHeaders(withoutHeader(message.headers, SOURCE_HEADER), [
      [SOURCE_HEADER, `${this.source.name} ${message.seq}`],
    ]);
    this.target.storeSourced(subject, headers, message.payload);
  }

  /** Where copying starts: after what the stream already holds from this origin. */
  #startingSeq(origin: Stream): number {
    if (this.kind === 'mirror') {
      if (this.target.lastSeq > 0) return this.target.lastSeq + 1;
    } else {
      const prefix = `${this.source.name} `;
      const last = this.target.findLast(
        (m) => !!m.headers && !!headerValue(m.headers, SOURCE_HEADER)?.startsWith(prefix),
      );
      const seq = last && Number(headerValue(last.headers!, SOURCE_HEADER)!.slice(prefix.length));
      if (seq) return seq + 1;
    }
    if (this.source.opt_start_seq) return this.source.opt_start_seq;
    if (this.source.opt_start_time) {
      const ms = Date.parse(this.source.opt_start_time);
      return origin.store.seqFromTime(BigInt(ms) * 1_000_000n);
    }
    return 1;
  }
}
