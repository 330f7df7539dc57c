/**
 * Remembered answers for subjects, bounded like nats-server's permission caches: past `max`
 * entries the oldest `prune` are forgotten, so a client publishing to ever new subjects cannot
 * grow it.
 */
export class DecisionCache {
  readonly #answers = new Map<string, boolean>();

  constructor(
    private readonly max = 128,
    private readonly prune = 32,
  ) {}

  get(subject: string): boolean | undefined {
    return this.#answers.get(subject);
  }

  set(subject: string, answer: boolean): void {
    this.#answers.set(subject, answer);
    if (this.#answers.size <= this.max) return;
    let dropped = 0;
    for (const key of this.#answers.keys()) {
      if (dropped++ === this.prune) break;
      this.#answers.delete(key);
    }
  }

  get size(): number {
    return this.#answers.size;
  }
}
