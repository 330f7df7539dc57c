import { ClosedConnectionError, DrainingConnectionError } from '@slipstream/client';
import { type ConsumerMessages, Consumption } from './consumption.js';
import { Delivery } from './delivery.js';
import { StreamNotFoundError } from './errors.js';
import type { JsMsg } from './jsmsg.js';

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
  /** The last stream sequence accepted; 0 before the first. */
  readonly position: number;
  /**
   * Goes back to `streamSequence` when it is behind the position (the reader left accepted
   * messages untaken): the consumer in use is dropped, the next one starts after it.
   */
  rewind(streamSequence: number): void;
}

/**
 * Starts a consumption (a fetch, a consume) of the consumer in use, creating one after a reset,
 * that hands its messages to `delivery`.
 */
export type OpenConsumption = (delivery: Delivery) => Promise<ConsumerMessages>;

/** How a consume goes on after its consumption ended or was replaced. */
export interface OrderedReopen {
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
 * The messages of an ordered consumer: those of an underlying consumption (one fetch, or a
 * consume and the consumes that replace it), each checked as it arrives to be the next in order
 * and then handed to the reader. The underlying consumption keeps the reader's pace (its pull
 * requests and flow control replies wait for this reader). A gap ends the underlying
 * consumption and resets the consumer; so does one that ends with an error (409 Consumer
 * Deleted, missed heartbeats). With `reopen` (consume) it then starts again on a new consumer
 * and carries on; without (fetch) it ends, and the next fetch starts afresh. A consumer the
 * server lost silently (a restart: pulls to it are not answered) is noticed by asking for its
 * info after `idleCheck` without a message. A consume that ends deletes its consumer rather
 * than leave it to the server's inactive_threshold. `status()` passes on the underlying
 * consumptions' notifications and adds `reset` and `ordered_consumer_recreated`.
 */
export class OrderedConsumerMessages extends Consumption {
  readonly #cursor: OrderedCursor;
  readonly #open: OpenConsumption;
  readonly #reopen: OrderedReopen | undefined;
  #inner: ConsumerMessages | undefined;
  /** Numbers the underlying consumptions: what an old one still sends is ignored. */
  #generation = 0;
  /** Messages the current underlying consumption handed on. */
  #innerReceived = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #wake: (() => void) | undefined;
  /** Where the cursor stood before this consumption's first message. */
  readonly #startPosition: number;

  constructor(
    cursor: OrderedCursor,
    open: OpenConsumption,
    reopen: OrderedReopen | undefined,
    delivery: Delivery,
  ) {
    super(delivery);
    this.#cursor = cursor;
    this.#startPosition = cursor.position;
    this.#open = open;
    this.#reopen = reopen;
  }

  /** Starts the first underlying consumption; what fails here (no stream) is thrown. */
  async start(): Promise<this> {
    await this.#openInner();
    return this;
  }

  async #openInner(): Promise<void> {
    const generation = ++this.#generation;
    this.#innerReceived = 0;
    const inner = await this.#open(
      new Delivery({ callback: (msg) => this.#arrived(generation, msg), pace: this.delivery }),
    );
    if (this.ended || generation !== this.#generation) {
      void inner.close();
      return;
    }
    this.#inner = inner;
    void this.#forwardStatus(inner);
    void inner.closed().then((error) => this.#innerEnded(generation, error));
    this.#armIdleCheck();
  }

  #arrived(generation: number, msg: JsMsg): void {
    if (this.ended || generation !== this.#generation) return;
    this.#armIdleCheck();
    if (!this.#cursor.accept(msg)) {
      this.#replace(true);
      return;
    }
    this.#innerReceived++;
    this.deliver(msg);
  }

  /** Passes on what the underlying consumption tells, until it ends. */
  async #forwardStatus(inner: ConsumerMessages): Promise<void> {
    for await (const n of inner.status()) this.notifications.notify(n);
  }

  async #innerEnded(generation: number, error: Error | undefined): Promise<void> {
    if (this.ended || generation !== this.#generation) return;
    // a fetch that found nothing may have pulled from a consumer the server no longer has
    const gone =
      !this.#reopen &&
      this.#innerReceived === 0 &&
      !(await this.#cursor.exists().catch(() => true));
    if (this.ended || generation !== this.#generation) return;
    this.#replace(error !== undefined || gone);
  }

  /**
   * Lets go of the underlying consumption, resetting the consumer when it must be replaced; a
   * consume then starts again, a fetch is over.
   */
  #replace(reset: boolean): void {
    this.#generation++;
    clearTimeout(this.#idleTimer);
    void this.#inner?.close();
    this.#inner = undefined;
    if (reset) {
      this.notifications.notify({ type: 'reset', name: this.#cursor.consumerName() });
      this.#cursor.reset();
    }
    if (this.#reopen) void this.#reopenLoop();
    else this.end();
  }

  #armIdleCheck(): void {
    if (!this.#reopen) return;
    clearTimeout(this.#idleTimer);
    const generation = this.#generation;
    this.#idleTimer = setTimeout(async () => {
      const exists = await this.#cursor.exists().catch(() => true);
      // meanwhile the messages may have ended, or moved on to another consumption
      if (this.ended || generation !== this.#generation) return;
      if (exists) this.#armIdleCheck();
      else this.#replace(true);
    }, this.#reopen.idleCheck);
  }

  /** A new consumption after a reset; retried while the server is away, ended by a lasting problem. */
  async #reopenLoop(): Promise<void> {
    for (let fails = 1; !this.ended; fails++) {
      try {
        await this.#openInner();
        if (!this.ended) {
          this.notifications.notify({
            type: 'ordered_consumer_recreated',
            name: this.#cursor.consumerName(),
          });
        }
        return;
      } catch (error) {
        if (error instanceof StreamNotFoundError) {
          const name = this.#cursor.stream;
          this.notifications.notify({ type: 'stream_not_found', name, consumerCreateFails: fails });
        }
        if (isLasting(error)) {
          this.end(error as Error);
          return;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          setTimeout(resolve, RECREATE_DELAY_MS);
        });
      }
    }
  }

  /**
   * A reader that broke out of its loop leaves messages that were accepted but never taken: the
   * next consumption must start after the last one taken, not the last one accepted.
   */
  protected override iterationOver(): void {
    super.iterationOver();
    if (this.getPending() > 0) {
      this.#cursor.rewind(this.delivery.lastTaken?.seq ?? this.#startPosition);
    }
  }

  protected release(): void {
    this.#generation++;
    clearTimeout(this.#idleTimer);
    this.#wake?.();
    void this.#inner?.close();
    if (this.#reopen) this.#cursor.reset();
  }
}
