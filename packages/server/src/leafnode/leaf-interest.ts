import { subjectMatches } from '@slipstream/protocol';

/** nats-server's prefix of the subject each account announces to find loops of leaf connections. */
export const LOOP_DETECTION_PREFIX = '$LDS.';

/**
 * The JetStream subjects nats-server keeps off every leaf connection of an account that does not
 * extend a JetStream domain across it (denyAllClientJs, added both ways): neither announced nor
 * sent, so each side's JetStream answers its own clients only. A domain's `$JS.<domain>.API`
 * is how one side reaches the other's.
 */
const JETSTREAM_DENIED = ['$JS.API.>', '$KV.>', '$OBJ.>'];

/**
 * True when one of the deny patterns covers `subject` (a subscription's subject as a literal, as
 * nats-server's permission checks read it: a deny of `a.>` does not cover a subscription to `>`).
 */
export function deniedBy(subject: string, patterns: readonly string[]): boolean {
  return patterns.some((denied) => subjectMatches(subject, denied));
}

/** A message subject this connection does not carry, whatever the deny lists. */
export function jetStreamDenied(subject: string): boolean {
  return deniedBy(subject, JETSTREAM_DENIED);
}

/** nats-server's key of one interest: the subject, or `subject queue` for a queue group. */
export function interestKey(subject: string, queue: string | undefined): string {
  return queue === undefined ? subject : `${subject} ${queue}`;
}

/**
 * What we told the other side of one leaf connection that we are interested in (nats-server's
 * smap): a count per key, sent as LS+ when a subject's first subscriber comes and LS- when its
 * last goes; a queue group's every change is sent, with its count as the group's weight.
 */
export class AnnouncedInterest {
  readonly #counts = new Map<string, number>();

  constructor(
    readonly announce: (key: string, count: number) => void,
    /** The connection's permissions on interest (a remote's deny_imports, a leaf user's). */
    readonly permitted: (subject: string) => boolean = () => true,
  ) {}

  /** True for a subject whose interest this connection does not announce. */
  refuses(subject: string): boolean {
    if (subject.startsWith(LOOP_DETECTION_PREFIX)) return false;
    return deniedBy(subject, JETSTREAM_DENIED) || !this.permitted(subject);
  }

  /**
   * The interest there is when the connection is made: counted first, then sent once per key
   * (a queue group with its whole weight).
   */
  announceAll(entries: Iterable<{ key: string; subject: string; count: number }>): void {
    for (const { key, subject, count } of entries) {
      if (this.refuses(subject)) continue;
      this.#counts.set(key, (this.#counts.get(key) ?? 0) + count);
    }
    for (const [key, count] of this.#counts) this.announce(key, count);
  }

  /** A change by `delta` subscribers (or queue members) of `key`. */
  update(key: string, subject: string, queue: boolean, delta: number): void {
    if (this.refuses(subject)) return;
    const count = this.#counts.get(key) ?? 0;
    const send = queue || count === 0 || count + delta <= 0;
    const next = count + delta;
    if (next > 0) this.#counts.set(key, next);
    else this.#counts.delete(key);
    if (send) this.announce(key, next);
  }
}
