import { ClosedConnectionError, DrainingConnectionError } from '@slipstream/client';
import { type ConsumerNotification, ConsumerStatus } from './consumer-status.js';
import { StreamNotFoundError } from './errors.js';
import type { JsMsg } from './jsmsg.js';
import type { ConsumerMessages } from './pull-batch.js';
import { deliverToCallback } from './push-consumer-messages.js';

/** What the messages of an ordered consumer need from it (OrderedConsumerImpl). */
export interface OrderedCursor {
  /** True when `msg` is the next delivery; false on a gap. */
  accept(msg: JsMsg): boolean;
  /**
   * Drops the consumer in use (deleting it on the server): the next pull creates one after the
   * last sequence seen.
   */
  reset(): void;
  /** The name of the consumer in use (the one created last). */
  consumerName(): string;
  /** The stream it reads. */
  readonly stream: string;
  /** False when the consumer in use is gone from the server. */
  exists(): Promise<boolean>;
}

export interface OrderedReopen {
  /** Pulls again from the consumer in use, creating one after a reset. */
  open(): Promise<ConsumerMessages>;
  /** Milliseconds without a message after which the consumer is checked for. */
  idleCheck: number;
}

/** What asking again will not cure: no stream, or no connection to ask on. */
const isLasting = (error: unknown) =>
  error instanceof StreamNotFoundError ||
  error instanceof ClosedConnectionError ||
  error instanceof DrainingConnectionError;

/** Wait between attempts to create a consumer while the server is away. */
const RECREATE_DELAY_MS = 1000;

/**
 * The messages of an ordered consumer's pull: those of the underlying pull (one fetch, or a
 * consume and the consumes that replace it), each checked to be the next in order. A gap ends
 * the underlying pull and resets the consumer; so does a pull that ends with an error (409
 * Consumer Deleted, missed heartbeats). With `reopen` (consume) it then pulls again from a new
 * consumer and carries on; without (fetch) it ends, and the next fetch starts afresh. A consumer
 * the server lost silently (a restart: pulls to it are not answered) is noticed by asking for
 * its info after `idleCheck` without a message. A consume that ends deletes its consumer rather
 * than leave it to the server's inactive_threshold. `status()` passes on the underlying pulls'
 * notifications and adds `reset` and `ordered_consumer_recreated`.
 */
export class OrderedConsumerMessages implements ConsumerMessages {
  readonly #cursor: OrderedCursor;
  readonly #reopen: OrderedReopen | undefined;
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (error: Error | undefined) => void;
  #inner: ConsumerMessages | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the idle check found the consumer gone and ended the pull. */
  #lost = false;
  readonly #status = new ConsumerStatus();

  constructor(
    cursor: OrderedCursor,
    first: ConsumerMessages,
    reopen?: OrderedReopen,
    callback?: (msg: JsMsg) => void,
  ) {
    this.#cursor = cursor;
    this.#inner = first;
    void this.#forwardStatus(first);
    this.#reopen = reopen;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    if (callback) void deliverToCallback(this, callback, (e) => this.#end(e));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    let error: Error | undefined;
    try {
      while (!this.#stopped) {
        const inner = this.#inner ?? (await this.#open());
        if (!inner) break;
        this.#inner = inner;
        if (!(yield* this.#drain(inner))) this.#reset();
        this.#inner = undefined;
        if (!this.#reopen) break;
      }
    } catch (e) {
      error = e as Error;
    } finally {
      this.#end(error);
    }
    if (error) throw error;
  }

  async close(): Promise<void> {
    this.#end(undefined);
  }

  closed(): Promise<Error | undefined> {
    return this.#closed;
  }

  status(): AsyncIterable<ConsumerNotification> {
    return this.#status.iterate();
  }

  /** Passes on what the underlying pull tells, until it ends. */
  async #forwardStatus(inner: ConsumerMessages): Promise<void> {
    for await (const n of inner.status()) this.#status.notify(n);
  }

  #reset(): void {
    this.#status.notify({ type: 'reset', name: this.#cursor.consumerName() });
    this.#cursor.reset();
  }

  /**
   * Yields the in-order messages of one underlying pull; false when the consumer must be
   * replaced (a gap, an error, or found gone).
   */
  async *#drain(inner: ConsumerMessages): AsyncGenerator<JsMsg, boolean> {
    let received = 0;
    try {
      this.#armIdleCheck(inner);
      for await (const msg of inner) {
        this.#armIdleCheck(inner);
        if (!this.#cursor.accept(msg)) return false;
        received++;
        yield msg;
      }
    } catch {
      // the pull failed (consumer deleted, heartbeats missed): replace the consumer
      return false;
    } finally {
      clearTimeout(this.#idleTimer);
      await inner.close();
    }
    if (await inner.closed()) return false;
    // a fetch that found nothing may have pulled from a consumer the server no longer has
    if (!this.#reopen && received === 0) return this.#cursor.exists().catch(() => true);
    return !this.#lost;
  }

  #armIdleCheck(inner: ConsumerMessages): void {
    if (!this.#reopen) return;
    clearTimeout(this.#idleTimer);
    this.#lost = false;
    this.#idleTimer = setTimeout(async () => {
      const exists = await this.#cursor.exists().catch(() => true);
      // meanwhile the messages may have ended, or moved on to another pull with its own timer
      if (this.#stopped || this.#inner !== inner) return;
      if (exists) return this.#armIdleCheck(inner);
      this.#lost = true;
      await inner.close();
    }, this.#reopen.idleCheck);
  }

  /** A new pull after a reset; retried while the server is away, ended by a lasting problem. */
  async #open(): Promise<ConsumerMessages | undefined> {
    for (let fails = 1; !this.#stopped; fails++) {
      try {
        const inner = await this.#reopen!.open();
        void this.#forwardStatus(inner);
        this.#status.notify({
          type: 'ordered_consumer_recreated',
          name: this.#cursor.consumerName(),
        });
        return inner;
      } catch (error) {
        if (error instanceof StreamNotFoundError) {
          const name = this.#cursor.stream;
          this.#status.notify({ type: 'stream_not_found', name, consumerCreateFails: fails });
        }
        if (isLasting(error)) throw error;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          setTimeout(resolve, RECREATE_DELAY_MS);
        });
      }
    }
    return undefined;
  }

  #end(error: Error | undefined): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#idleTimer);
    this.#wake?.();
    void this.#inner?.close();
    if (this.#reopen) this.#cursor.reset();
    this.#status.end();
    this.#resolveClosed(error);
  }
}
