import type { ByteSink, TransportConnection } from './transport.js';

/** Chunks the async iterator may hold before reading pauses. */
const ITERATOR_HIGH_WATER = 64;

/**
 * What every connection kind shares: holding bytes until someone listens, the closed promise, and
 * the async-iterator view with a bounded queue. Subclasses feed it through `received` and `ended`.
 */
export abstract class BaseConnection implements TransportConnection {
  abstract readonly url: URL;
  abstract readonly encrypted: boolean;
  readonly closed: Promise<Error | undefined>;

  #sink: ByteSink | undefined;
  #early: Uint8Array[] = [];
  #endedWith: { error: Error | undefined } | undefined;
  #resolveClosed!: (error: Error | undefined) => void;

  constructor() {
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  abstract send(bytes: Uint8Array): boolean;
  abstract drained(): Promise<void>;
  abstract pause(): void;
  abstract resume(): void;
  abstract close(error?: Error): Promise<void>;

  /** True once the connection is gone. */
  get isClosed(): boolean {
    return this.#endedWith !== undefined;
  }

  listen(sink: ByteSink): void {
    if (this.#sink) throw new Error('a connection delivers to one listener only');
    this.#sink = sink;
    const early = this.#early;
    this.#early = [];
    for (const chunk of early) sink.data(chunk);
    if (this.#endedWith) sink.closed(this.#endedWith.error);
    else this.resume();
  }

  protected received(chunk: Uint8Array): void {
    if (this.#sink) this.#sink.data(chunk);
    else this.#early.push(chunk);
  }

  protected ended(error: Error | undefined): void {
    if (this.#endedWith) return;
    this.#endedWith = { error };
    this.#resolveClosed(error);
    this.#sink?.closed(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const queue: Uint8Array[] = [];
    let end: { error: Error | undefined } | undefined;
    let wake: (() => void) | undefined;
    let paused = false;
    this.listen({
      data: (chunk) => {
        queue.push(chunk);
        if (queue.length >= ITERATOR_HIGH_WATER && !paused) {
          paused = true;
          this.pause();
        }
        wake?.();
      },
      closed: (error) => {
        end = { error };
        wake?.();
      },
    });
    const next = async (): Promise<IteratorResult<Uint8Array>> => {
      while (queue.length === 0 && !end) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      const chunk = queue.shift();
      if (chunk) {
        if (paused && queue.length < ITERATOR_HIGH_WATER / 2) {
          paused = false;
          this.resume();
        }
        return { value: chunk, done: false };
      }
      if (end?.error) throw end.error;
      return { value: undefined, done: true };
    };
    return {
      next,
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
