/** nats-server's key of one interest: the subject, or `subject queue` for a queue group. */
export function routeInterestKey(subject: string, queue: string | undefined): string {
  return queue === undefined ? subject : `${subject} ${queue}`;
}

/**
 * The interest of this server in one account that the other members are told of (nats-server's
 * per-account route map, `rm`): a count per key, announced as RS+ when a subject's first
 * subscriber comes and RS- when its last goes; a queue group's every change is announced, its
 * count as the group's weight.
 */
export class RouteInterest {
  readonly #counts = new Map<string, number>();

  constructor(
    readonly account: string,
    /** Sends one change to every route: `count` 0 takes the interest back. */
    readonly announce: (line: string) => void,
  ) {}

  /** A change by `delta` subscribers (or queue members) of `subject` (in `queue`). */
  update(subject: string, queue: string | undefined, delta: number): void {
    const key = routeInterestKey(subject, queue);
    const count = this.#counts.get(key) ?? 0;
    // A removal of what was never counted (a subscription made before we listened) changes nothing.
    if (count === 0 && delta <= 0) return;
    const next = count + delta;
    if (next > 0) this.#counts.set(key, next);
    else this.#counts.delete(key);
    if (queue !== undefined || count === 0 || next <= 0)
      this.announce(this.#line(key, queue, next));
  }

  /** Every interest as RS+ lines, for a route just registered. */
  lines(): string[] {
    const lines: string[] = [];
    for (const [key, count] of this.#counts) {
      lines.push(this.#line(key, key.includes(' ') ? '' : undefined, count));
    }
    return lines;
  }

  #line(key: string, queue: string | undefined, count: number): string {
    if (count <= 0) return `RS- ${this.account} ${key}`;
    return queue === undefined
      ? `RS+ ${this.account} ${key}`
      : `RS+ ${this.account} ${key} ${count}`;
  }
}
