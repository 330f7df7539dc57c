/**
 * Damage found in an account's stored streams, reported three ways: an error in the log naming
 * the account, the stream and the sequences; the list /healthz reads (503 while anything is on
 * it); and our advisory `$JS.EVENT.ADVISORY.STREAM.DAMAGED.<stream>` (nats-server 2.11 has no
 * advisory for damaged data, see advisories.ts). It is found when the server starts (every
 * message's checksum and SQLite's integrity check; the file is then rebuilt from what reads
 * intact) or later by a read (a message failing its checksum, SQLite reporting a damaged page).
 * Each damaged message is reported once. Nothing is ever deleted because it looks damaged: the
 * damaged files stay for a person to look at.
 */
import type { Logger } from '../../logger.js';
import type { Advisories } from '../advisories.js';
import type { StoreError } from '../store/message-store.js';
import type { FileDamage, Salvage } from '../store/sqlite-salvage.js';

/**
 * One finding: damaged messages (`seqs`; the stream is served without them), or a file damaged
 * beyond telling which messages (`error`; messages may be missing, or the stream is offline
 * when it could not be opened).
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

  /**
   * The start found `damage` in a stream's file and rebuilt it (sqlite-salvage.ts): the intact
   * messages are served, the lost ones are named, the damaged files wait in `salvage.aside`.
   */
  salvaged(stream: string, damage: FileDamage, salvage: Salvage): void {
    const { msgs } = salvage.lost;
    const what = damage.structure
      ? `a damaged file (${damage.structure})`
      : `${damage.seqs.length} damaged messages (checksum mismatch)`;
    const { lostConsumers, resetConsumers } = salvage;
    const consumers =
      (lostConsumers.length > 0 ? `; consumers lost: ${lostConsumers.join(', ')}` : '') +
      (resetConsumers.length > 0
        ? `; consumers starting over (their state was damaged): ${resetConsumers.join(', ')}`
        : '');
    const shown =
      msgs.slice(0, LOGGED_SEQS).join(', ') + (msgs.length > LOGGED_SEQS ? ', ...' : '');
    this.#report(
      {
        stream,
        seqs: msgs,
        ...(damage.structure ? { error: `its file is damaged: ${damage.structure}` } : {}),
      },
      `had ${what}: recovered ${salvage.kept} messages, lost ${msgs.length}` +
        `${consumers}; the damaged files are kept in ${salvage.aside}`,
      msgs.length > 0 ? `: lost sequences ${shown}` : '',
    );
  }

  /**
   * The start found one of the stream's small files damaged and rewrote it: a meta file from the
   * other, messages.last from the database.
   */
  repaired(stream: string, detail: string): void {
    this.#report({ stream, error: detail }, `had ${detail}`);
  }

  /**
   * A stream that could not be opened at start (its meta.json, or a file with nothing readable):
   * left as it is on disk and answered as offline.
   */
  offline(stream: string, dir: string, error: string): void {
    this.#report(
      { stream, error },
      `could not be restored from ${dir}, which is left as it is; the stream is offline: ${error}`,
    );
  }

  /** A read found damage (the store's 'corrupt' error, which the reader gets too). */
  read(error: StoreError): void {
    const { stream, seq, message } = error;
    if (stream === undefined) return;
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
    const named = seqs?.length ? { seqs: seqs.slice(0, ADVISED_SEQS) } : {};
    this.advisories.streamDamaged(stream, { ...named, reason }, true);
  }
}
