/**
 * When unacknowledged messages are due again: a min-heap of (due time, stream sequence) with
 * one timer for the earliest, so a consumer with thousands of messages out holds one timer.
 * Entries are never removed early: an ack or a new deadline leaves a stale entry behind, and
 * the consumer tells stale from live when it fires (`isDue`).
 */
import { DueHeap } from './due-heap.js';

export class RedeliveryTimer {
  readonly #heap = new DueHeap<number>();
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Number.POSITIVE_INFINITY;

  constructor(
    /** Called with the sequences whose time came, in due order; it filters stale ones. */
    private readonly fire: (seqs: number[]) => void,
  ) {}

  /** Redeliver `seq` at `due` (milliseconds since the epoch) unless acked by then. */
  schedule(seq: number, due: number): void {
    this.#heap.push(seq, due);
    if (due < this.#timerDue) this.#arm(due);
  }

  clear(): void {
    this.#heap.clear();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
  }

  #arm(due: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, due - Date.now()));
    this.#timer.unref?.();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const due = this.#heap.takeDue(Date.now());
    const next = this.#heap.nextDue;
    if (next !== undefined) this.#arm(next);
    if (due.length > 0) this.fire(due);
  }
}
