/**
 * When messages with a per-message TTL are due, soonest first: a binary min-heap of
 * (due time, sequence). A message removed some other way stays queued until it is due; the
 * store then finds nothing to remove for it (sequences are never reused).
 */
interface Due {
  readonly due: bigint;
  readonly seq: number;
}

export class TtlQueue {
  private readonly heap: Due[] = [];

  get size(): number {
    return this.heap.length;
  }

  /** The soonest due time, or undefined when nothing is queued. */
  get next(): bigint | undefined {
    return this.heap[0]?.due;
  }

  add(seq: number, due: bigint): void {
    const heap = this.heap;
    heap.push({ due, seq });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= heap[i]!.due) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  /** Takes out and returns the sequences due at or before `now`, soonest first. */
  takeDue(now: bigint): number[] {
    const due: number[] = [];
    while (this.heap.length > 0 && this.heap[0]!.due <= now) due.push(this.pop());
    return due;
  }

  clear(): void {
    this.heap.length = 0;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && heap[left]!.due < heap[smallest]!.due) smallest = left;
        if (right < heap.length && heap[right]!.due < heap[smallest]!.due) smallest = right;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
        i = smallest;
      }
    }
    return top.seq;
  }
}
