/**
 * Damage found in an account's stored streams, reported three ways: an error in the log naming
 * the account, the stream and the sequences; the list /healthz reads (503 while anything is on
 * it); and our advisory `$JS.EVENT.ADVISORY.STREAM.DAMAGED.<stream>` (nats-server 2.11 has no
 * advisory for damaged data, see advisories.ts). It is found when the server starts (every
 * message's checksum and SQLite's integrity check) or later by a read (a message failing its
 * checksum, SQLite reporting a damaged page). Each damaged message is reported once. Nothing is
 * ever deleted because it looks damaged: the data stays for a person to look at.
 */
import type { Logger } from '../../logger.js';
import type { Advisories } from '../advisories.js';
import type { MessageStore, StoreError } from '../store/message-store.js';

/**
 * One finding: damaged messages (`seqs`; the stream is served without them), or a file damaged
 * beyond telling which messages (`error`; messages may be missing, or the stream is not served
 * at all when it could not be opened).
 */
export interface StreamDamage {
  stream: string;
  seqs?: number[];
  error?: string;
}

/** At most this many sequences are named in one log line, and in one advisory. */
const LOGGED_SEQS = 20;
const ADVISED_SEQS = 1000;

export class StreamDamageReports {
  #found: StreamDamage[] = [];
  /** The stream whose start check is running: its reads' damage is the check's to report. */
  #checking: string | undefined;

  constructor(
    private readonly account: string,
    private readonly advisories: Advisories,
    private readonly logger: Logger,
  ) {}

  /** What is known damaged in the account's streams now. */
  get found(): readonly StreamDamage[] {
    return this.#found;
  }

  /**
   * A deleted stream's damage goes with it: nats-server's single-server /healthz looks only at
   * the stream directories still there (v2.11.0 monitor.go:3432-3484).
   */
  forget(stream: string): void {
    this.#found = this.#found.filter((damage) => damage.stream !== stream);
  }

  /** The start check of a stream's store: every message's checksum, then the file's structure. */
  checkAtStart(stream: string, store: MessageStore): void {
    this.#checking = stream;
    let seqs: number[];
    let structure: string | undefined;
    try {
      seqs = store.findDamaged();
      structure = store.checkStructure?.();
    } finally {
      this.#checking = undefined;
    }
    if (seqs.length > 0) {
      const shown =
        seqs.slice(0, LOGGED_SEQS).join(', ') + (seqs.length > LOGGED_SEQS ? ', ...' : '');
      this.#report(
        { stream, seqs },
        `has ${seqs.length} damaged messages (checksum mismatch), which are not served`,
        `: sequences ${shown}`,
      );
    }
    if (structure) {
      this.#report(
        { stream, error: `its file is damaged: ${structure}` },
        `has a damaged file (${structure}): messages may be missing from it`,
      );
    }
  }

  /** A stream that could not be opened at start, left as it is on disk and not served. */
  unreadable(stream: string, dir: string, error: string): void {
    this.#report(
      { stream, error },
      `could not be restored from ${dir}, which is left as it is and not served: ${error}`,
    );
  }

  /** A read found damage (the store's 'corrupt' error, which the reader gets too). */
  read(error: StoreError): void {
    const { stream, seq, message } = error;
    if (stream === undefined || stream === this.#checking) return;
    const known = this.#found.filter((damage) => damage.stream === stream);
    if (seq === undefined) {
      if (known.some((damage) => damage.error === message)) return;
      this.#found.push({ stream, error: message });
    } else {
      if (known.some((damage) => damage.seqs?.includes(seq))) return;
      const listed = known.find((damage) => damage.seqs);
      if (listed) listed.seqs!.push(seq);
      else this.#found.push({ stream, seqs: [seq] });
    }
    this.logger.error(`JetStream stream '${this.account} > ${stream}': ${message}`);
    const seqs = seq === undefined ? {} : { seqs: [seq] };
    this.advisories.streamDamaged(stream, { ...seqs, reason: message }, false);
  }

  /** Damage found at start: its advisory waits for a listener, as none can listen yet. */
  #report(damage: StreamDamage, reason: string, detail = ''): void {
    this.#found.push(damage);
    const { stream, seqs } = damage;
    this.logger.error(`JetStream stream '${this.account} > ${stream}' ${reason}${detail}`);
    const named = seqs ? { seqs: seqs.slice(0, ADVISED_SEQS) } : {};
    this.advisories.streamDamaged(stream, { ...named, reason }, true);
  }
}
