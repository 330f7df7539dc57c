import { InvalidOperationError } from '@slipstream/client';
import type { JsMsg } from './jsmsg.js';

/** What a consumption's requests and replies wait for: the reader catching up. */
export interface ReaderPace {
  /**
   * Runs `action` once the reader has taken every message handed on so far and asks for more
   * (at once when it already waits, or when a callback takes the messages as they come).
   */
  whenTaken(action: () => void): void;
  /** Messages handed on and not yet taken by the reader. */
  getPending(): number;
}

export interface DeliveryOptions {
  /** Hand each message to this function as it comes instead of queueing it for an iterator. */
  callback?: ((msg: JsMsg) => void) | undefined;
  /**
   * The reader further on whose pace this delivery keeps (an ordered consumer reads through
   * consumptions that hand it their messages with a callback).
   */
  pace?: ReaderPace | undefined;
}

/**
 * Where a consumption puts the messages it receives: a callback, or a queue that one iterator
 * reads. Counts as nats.js v3's ConsumerMessages count: received (handed in), processed (taken
 * by the iterator, or handed to the callback) and pending (queued, not yet taken).
 * `whenTaken` lets the consumption hold back what would bring more messages (the next pull
 * request, a flow control reply) until the reader has caught up, so a slow reader slows the
 * server instead of growing the queue; before the iteration starts nothing is asked for.
 */
export class Delivery implements ReaderPace {
  readonly #callback: ((msg: JsMsg) => void) | undefined;
  readonly #pace: ReaderPace | undefined;
  #queue: JsMsg[] = [];
  #head = 0;
  /** Actions waiting for the reader, with how many messages it must have taken first. */
  #actions: { after: number; run: () => void }[] = [];
  #received = 0;
  #taken = 0;
  #lastTaken: JsMsg | undefined;
  #iterating = false;
  /** The iterator waits for a message: the queue is empty and everything was taken. */
  #waiting = false;
  #wake: (() => void) | undefined;
  #stopped = false;
  #error: Error | undefined;

  constructor(options: DeliveryOptions = {}) {
    this.#callback = options.callback;
    this.#pace = options.pace;
  }

  get hasCallback(): boolean {
    return this.#callback !== undefined;
  }

  /** Hands on a message; what the callback throws is thrown here, for the consumption to end. */
  push(msg: JsMsg): void {
    if (this.#stopped) return;
    this.#received++;
    if (this.#callback) {
      this.#callback(msg);
      this.#taken++;
      return;
    }
    this.#queue.push(msg);
    this.#waiting = false;
    this.#wake?.();
  }

  whenTaken(action: () => void): void {
    if (this.#stopped) return;
    if (this.#pace) this.#pace.whenTaken(action);
    else if (this.#callback || this.#waiting) action();
    else this.#actions.push({ after: this.#received, run: action });
  }

  /** No more messages; the iterator yields those queued, then ends (throwing `error`). */
  stop(error?: Error): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#error = error;
    this.#actions = [];
    this.#wake?.();
  }

  getReceived(): number {
    return this.#received;
  }

  getProcessed(): number {
    return this.#taken;
  }

  /** The last message the iterator took. */
  get lastTaken(): JsMsg | undefined {
    return this.#lastTaken;
  }

  getPending(): number {
    return this.#pace ? this.#pace.getPending() : this.#queue.length - this.#head;
  }

  /**
   * The messages, once: `done` is called when the iteration is over, also when the reader
   * breaks out of its loop (the consumption then ends).
   */
  async *iterate(done: () => void): AsyncGenerator<JsMsg, void, undefined> {
    if (this.#callback) {
      throw new InvalidOperationError('iterator cannot be used when a callback is registered');
    }
    if (this.#iterating) throw new InvalidOperationError('iterator is already yielding');
    this.#iterating = true;
    try {
      for (;;) {
        this.#runDue();
        if (this.#head === this.#queue.length) {
          if (this.#stopped) break;
          await this.#nextPush();
          continue;
        }
        this.#taken++;
        this.#lastTaken = this.#take();
        yield this.#lastTaken;
      }
    } finally {
      done();
    }
    if (this.#error) throw this.#error;
  }

  #runDue(): void {
    while (this.#actions.length > 0 && this.#actions[0]!.after <= this.#taken) {
      this.#actions.shift()!.run();
    }
  }

  async #nextPush(): Promise<void> {
    this.#waiting = true;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    this.#wake = undefined;
    this.#waiting = false;
  }

  #take(): JsMsg {
    const msg = this.#queue[this.#head]!;
    // the reader owns it now: the queue must not keep its payload alive until the next compaction
    (this.#queue as (JsMsg | undefined)[])[this.#head] = undefined;
    this.#head++;
    // drop the taken ones now and then, so a long consumption keeps no growing array
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return msg;
  }
}
