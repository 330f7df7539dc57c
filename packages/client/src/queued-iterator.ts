import { InvalidOperationError } from './errors.js';

/**
 * A single-consumer async queue. The producer decides what to do when it is "full" (it reads
 * `length`); this class only keeps order, wakes the consumer, and ends after the queued items
 * when stopped, optionally with an error.
 */
export class QueuedIterator<T> implements AsyncIterable<T>, AsyncIterator<T> {
  #items: T[] = [];
  #head = 0;
  #wake: (() => void) | undefined;
  #stopped = false;
  #error: Error | undefined;
  #started = false;
  #finished = false;
  /** Called with each item as the consumer takes it. */
  onTaken: ((item: T) => void) | undefined;
  /** Called once when the consumer has seen the end, or broke out of its loop. */
  onFinished: ((error: Error | undefined) => void) | undefined;

  get length(): number {
    return this.#items.length - this.#head;
  }

  get isStopped(): boolean {
    return this.#stopped;
  }

  push(item: T): void {
    if (this.#stopped) return;
    this.#items.push(item);
    this.#wake?.();
  }

  /** Drops and returns the oldest queued item. */
  dropOldest(): T | undefined {
    if (this.length === 0) return undefined;
    return this.#take();
  }

  /** No more items will be pushed; the consumer sees the queued ones, then the end (or `error`). */
  stop(error?: Error): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#error = error;
    this.#wake?.();
    if (!this.#started && this.length === 0) this.#finish();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#started) throw new InvalidOperationError('this iterator can only be iterated once');
    this.#started = true;
    return this;
  }

  async next(): Promise<IteratorResult<T>> {
    while (this.length === 0) {
      if (this.#stopped) {
        this.#finish();
        if (this.#error) {
          const error = this.#error;
          this.#error = undefined;
          throw error;
        }
        return { value: undefined, done: true };
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    const item = this.#take();
    this.onTaken?.(item);
    return { value: item, done: false };
  }

  async return(): Promise<IteratorResult<T>> {
    this.#stopped = true;
    this.#items = [];
    this.#head = 0;
    this.#finish();
    return { value: undefined, done: true };
  }

  #take(): T {
    const item = this.#items[this.#head] as T;
    (this.#items as Array<T | undefined>)[this.#head] = undefined;
    this.#head++;
    // Compact now and then so a long-lived queue does not keep a growing array of holes.
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.onFinished?.(this.#error);
  }
}
