/**
 * When unacknowledged messages are due again: a min-heap of (due time, stream sequence) with
 * one timer for the earliest, so a consumer with thousands of messages out holds one timer.
 * Entries are never removed early: an ack or a new deadline leaves a stale entry behind, and
 * the consumer tells stale from live when it fires (`isDue`).
 */

interface DueEntry {
  due: number;
  seq: number;
}

export class RedeliveryTimer {
  readonly #heap: DueEntry[] = [];
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Number.POSITIVE_INFINITY;

  constructor(
    /** Called with the sequences whose time came, in due order; it filters stale ones. */
    private readonly fire: (seqs: number[]) => void,
  ) {}

  /** Redeliver `seq` at `due` (milliseconds since the epoch) unless acked by then. */
  schedule(seq: number, due: number): void {
    this.#push({ due, seq });
    if (due < this.#timerDue) this.#arm(due);
  }

  clear(): void {
    this.#heap.length = 0;
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
    const now = Date.now();
    const due: number[] = [];
    while (this.#heap.length > 0 && this.#heap[0]!.due <= now) due.push(this.#pop().seq);
    if (this.#heap.length > 0) this.#arm(this.#heap[0]!.due);
    if (due.length > 0) this.fire(due);
  }

  #push(entry: DueEntry): void {
    const heap = this.#heap;
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= heap[i]!.due) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  #pop(): DueEntry {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && heap[left]!.due < heap[least]!.due) least = left;
        if (right < heap.length && heap[right]!.due < heap[least]!.due) least = right;
        if (least === i) break;
        [heap[least], heap[i]] = [heap[i]!, heap[least]!];
        i = least;
      }
    }
    return top;
  }
}
