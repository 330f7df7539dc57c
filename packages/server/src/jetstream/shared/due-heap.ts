/**
 * Sequences by the time they are due, soonest first: a binary min-heap of (due, sequence).
 * Consumer redelivery (milliseconds) and per-message TTLs (nanoseconds) both keep one, so a
 * stream or consumer with thousands of deadlines holds one timer. Nothing is removed early:
 * a sequence acked or removed meanwhile stays until due, and its owner tells stale from live.
 */
export class DueHeap<Time extends number | bigint> {
  readonly #heap: Array<{ due: Time; seq: number }> = [];

  get size(): number {
    return this.#heap.length;
  }

  /** The soonest due time, or undefined when empty. */
  get nextDue(): Time | undefined {
    return this.#heap[0]?.due;
  }

  push(seq: number, due: Time): void {
    const heap = this.#heap;
    heap.push({ due, seq });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= heap[i]!.due) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  /** Takes out the sequences due at or before `now`, in due order. */
  takeDue(now: Time): number[] {
    const due: number[] = [];
    while (this.#heap.length > 0 && this.#heap[0]!.due <= now) due.push(this.#pop());
    return due;
  }

  clear(): void {
    this.#heap.length = 0;
  }

  #pop(): number {
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
    return top.seq;
  }
}
