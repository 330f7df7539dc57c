/**
 * An ascending list of sequences, appended at the end and mostly removed from the front
 * (limits drop the oldest first): a plain array with a moving head, so removing the front
 * costs O(1) and finding a neighbour O(log n).
 */
export class SeqList {
  private seqs: number[] = [];
  private head = 0;

  get length(): number {
    return this.seqs.length - this.head;
  }

  push(seq: number): void {
    this.seqs.push(seq);
  }

  remove(seq: number): void {
    const index = this.lowerBound(seq);
    if (this.seqs[index] !== seq) return;
    if (index !== this.head) {
      this.seqs.splice(index, 1);
      return;
    }
    this.head++;
    // Give the removed front back once it is most of the array.
    if (this.head > 1024 && this.head * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.head = 0;
    }
  }

  /** The first sequence above `after`. */
  next(after: number): number | undefined {
    return this.seqs[this.lowerBound(after + 1)];
  }

  /** The last sequence below `before`. */
  prev(before: number): number | undefined {
    const index = this.lowerBound(before) - 1;
    return index >= this.head ? this.seqs[index] : undefined;
  }

  /** How many sequences are at or above `from`. */
  countFrom(from: number): number {
    return this.seqs.length - this.lowerBound(from);
  }

  /** Index of the first sequence at or above `seq`. */
  private lowerBound(seq: number): number {
    let low = this.head;
    let high = this.seqs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.seqs[middle]! < seq) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
