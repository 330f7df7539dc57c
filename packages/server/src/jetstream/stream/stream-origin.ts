/**
 * Feeds a stream from another stream of the same account: its mirror (messages copied at their
 * own sequence and time) or one of its sources (messages appended, marked with a
 * `Nats-Stream-Source: <origin> <seq>` header). A feed catches up from where the stream left
 * off, then follows its origin's appends; an origin that does not exist yet (or was deleted)
 * is looked for again every second. An origin reached through an API prefix (`external`) is
 * fed by stream-external-origin.ts instead, with the helpers here.
 */
import type { StreamSource } from '@slipstream/jsapi';
import { headerValue, withHeaders, withoutHeader } from '../shared/header-block.js';
import { firstMatchingTransform, type SubjectTransform } from '../shared/subject-transform.js';
import { nowNanos } from '../shared/wire-time.js';
import type { MessageStore, StoredMessage } from '../store/message-store.js';

/** What an origin tells the streams that follow it. */
export interface StreamWatcher {
  appended(): void;
  closed(): void;
}

/** The origin side of a feed: the stream copied from, as a feed reads and follows it. */
export interface FeedOrigin {
  readonly store: MessageStore;
  /** Tells `watcher` of every message the origin stores, and of its end. */
  watch(watcher: StreamWatcher): () => void;
}

/** A stream's mirror or one of its sources, fed while started. */
export interface Feed {
  readonly name: string;
  start(): void;
  stop(): void;
  /** The mirror's or source's entry in stream info. */
  info(): object;
  /** A leaf connection of the account came up: a feed from across it that is not running asks again. */
  linkUp?(): void;
}

/** The target side of a feed: how copied messages go into the stream it feeds. */
export interface FeedTarget {
  readonly name: string;
  readonly lastSeq: number;
  /** The newest message of the stream carrying a source header, scanning back from the end. */
  findLast(match: (message: StoredMessage) => boolean): StoredMessage | undefined;
  storeMirrored(message: StoredMessage): void;
  /** `originSubject`: the message's subject in its origin, before the source's transforms. */
  storeSourced(
    subject: string,
    headers: Uint8Array,
    payload: Uint8Array,
    originSubject: string,
  ): void;
}

const RETRY_MS = 1_000;
/** Messages copied per event-loop turn, so a large catch-up does not hold the loop. */
const BATCH = 512;
export const SOURCE_HEADER = 'Nats-Stream-Source';

export class OriginFeed implements Feed {
  #origin: FeedOrigin | undefined;
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
    private readonly lookup: (name: string) => FeedOrigin | undefined,
  ) {
    this.#transform = originTransform(source);
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

  /** `{name, lag, active}` and the filters, as stream info reports a mirror or source. */
  info() {
    const active = this.#origin ? Number(nowNanos() - this.#lastActive) : -1;
    return { name: this.source.name, lag: this.#lag, active, ...originFilterInfo(this.source) };
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
    copyInto(this.target, this.kind, this.source.name, this.#transform, message);
  }

  /** Where copying starts: after what the stream already holds from this origin. */
  #startingSeq(origin: FeedOrigin): number {
    const resumed = resumeSeq(this.target, this.kind, this.source.name);
    if (resumed) return resumed;
    if (this.source.opt_start_seq) return this.source.opt_start_seq;
    if (this.source.opt_start_time) {
      const ms = Date.parse(this.source.opt_start_time);
      return origin.store.seqFromTime(BigInt(ms) * 1_000_000n);
    }
    return 1;
  }
}

/**
 * The filters a mirror's or source's stream info entry repeats from its config, as nats-server
 * 2.10+ does (v2.11.0 stream.go:236-244 omits them when empty, :2342-2353 fills them).
 */
export function originFilterInfo(source: StreamSource) {
  const transforms = source.subject_transforms ?? [];
  return {
    ...(source.filter_subject ? { filter_subject: source.filter_subject } : {}),
    ...(transforms.length > 0
      ? { subject_transforms: transforms.map(({ src, dest }) => ({ src, dest })) }
      : {}),
  };
}

/** The mapping of an origin's `subject_transforms`, which also filter: none, no mapping. */
export function originTransform(source: StreamSource): SubjectTransform | undefined {
  const transforms = source.subject_transforms ?? [];
  return transforms.length > 0 ? firstMatchingTransform(transforms) : undefined;
}

/**
 * Stores one origin message in the stream it feeds: a mirror keeps its sequence and time (and
 * skips what it holds already), a source appends it with a `Nats-Stream-Source: <origin> <seq>`
 * header (replacing one it carried from further up). Unmapped by the transform: not copied.
 */
export function copyInto(
  target: FeedTarget,
  kind: 'mirror' | 'source',
  originName: string,
  transform: SubjectTransform | undefined,
  message: StoredMessage,
): void {
  const subject = transform ? transform(message.subject) : message.subject;
  if (subject === undefined) return;
  if (kind === 'mirror') {
    if (message.seq > target.lastSeq) target.storeMirrored({ ...message, subject });
    return;
  }
  const headers = withHeaders(withoutHeader(message.headers, SOURCE_HEADER), [
    [SOURCE_HEADER, `${originName} ${message.seq}`],
  ]);
  target.storeSourced(subject, headers, message.payload, message.subject);
}

/**
 * The origin sequence a feed resumes at, after what the stream already holds from it: a
 * mirror's last sequence, the last `Nats-Stream-Source` of a source; undefined when it holds
 * nothing yet.
 */
export function resumeSeq(
  target: FeedTarget,
  kind: 'mirror' | 'source',
  originName: string,
): number | undefined {
  if (kind === 'mirror') return target.lastSeq > 0 ? target.lastSeq + 1 : undefined;
  const prefix = `${originName} `;
  const last = target.findLast(
    (m) => !!m.headers && !!headerValue(m.headers, SOURCE_HEADER)?.startsWith(prefix),
  );
  const seq = last && Number(headerValue(last.headers!, SOURCE_HEADER)!.slice(prefix.length));
  return seq ? seq + 1 : undefined;
}
