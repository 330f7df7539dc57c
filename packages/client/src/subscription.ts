import {
  ClosedConnectionError,
  InvalidOperationError,
  SlowConsumerError,
  TimeoutError,
} from './errors.js';
import { MsgImpl, type Responder } from './msg.js';
import { QueuedIterator } from './queued-iterator.js';
import type { Msg, MsgCallback, Subscription, SubscriptionOptions } from './types.js';

/** What a subscription needs from the connection that owns it. */
export interface SubscriptionHost extends Responder {
  unsubscribeWire(sid: number, max?: number): void;
  forget(sub: SubscriptionImpl): void;
  flush(): Promise<void>;
  isClosed(): boolean;
  callbackFailed(error: unknown): void;
  slowConsumer(sub: SubscriptionImpl, error: SlowConsumerError): void;
}

export const DEFAULT_MAX_PENDING_MSGS = 65_536;
export const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;

export class SubscriptionImpl implements Subscription {
  readonly sid: number;
  /** The sid as the server echoes it, for the dispatch map. */
  readonly sidKey: string;
  readonly subject: string;
  readonly queue: string | undefined;
  readonly closed: Promise<Error | undefined>;
  /** Set by the owner for internal subscriptions (muxed inbox, services) that skip user-facing checks. */
  max: number | undefined;
  /** For a request's own reply subscription (noMux): the subject the request went to. */
  requestSubject: string | undefined;

  #host: SubscriptionHost;
  #callback: MsgCallback<Msg> | undefined;
  #iterator: QueuedIterator<Msg> | undefined;
  #maxPendingMsgs: number;
  #maxPendingBytes: number;
  #pendingBytes = 0;
  #received = 0;
  #processed = 0;
  #dropped = 0;
  #slow = false;
  #draining = false;
  #drained: Promise<void> | undefined;
  #done = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #resolveClosed!: (value: Error | undefined) => void;
  readonly #onCallbackRejected = (error: unknown) => this.#host.callbackFailed(error);

  constructor(
    host: SubscriptionHost,
    sid: number,
    subject: string,
    options: SubscriptionOptions = {},
  ) {
    this.#host = host;
    this.sid = sid;
    this.sidKey = String(sid);
    this.subject = subject;
    this.queue = options.queue;
    this.max = options.max;
    this.#callback = options.callback;
    this.#maxPendingMsgs = options.maxPendingMsgs ?? DEFAULT_MAX_PENDING_MSGS;
    this.#maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    if (!this.#callback) {
      const iterator = new QueuedIterator<Msg>();
      iterator.onTaken = (msg) => {
        this.#processed++;
        this.#pendingBytes -= msg.data.length;
        if (this.#slow && iterator.length < this.#maxPendingMsgs / 2) this.#slow = false;
      };
      iterator.onFinished = (error) => {
        // The consumer broke out of its loop: the server should stop sending too.
        if (!this.#done) this.#close(undefined, true);
        this.#resolveClosed(error);
      };
      this.#iterator = iterator;
    }
    if (options.timeout !== undefined && options.timeout > 0) {
      this.#timer = setTimeout(() => this.#close(new TimeoutError(), true), options.timeout);
    }
  }

  /** Hands one MSG to the subscriber; called by the connection's parser sink. */
  deliver(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): void {
    if (this.#done) return;
    this.#received++;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const msg = new MsgImpl(this.#host, subject, this.sid, reply, payload, headers);
    const callback = this.#callback;
    if (callback) {
      this.#processed++;
      try {
        const result = callback(null, msg);
        if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
          (result as Promise<void>).then(undefined, this.#onCallbackRejected);
        }
      } catch (error) {
        this.#host.callbackFailed(error);
      }
    } else {
      const iterator = this.#iterator!;
      if (
        iterator.length >= this.#maxPendingMsgs ||
        this.#pendingBytes + payload.length > this.#maxPendingBytes
      ) {
        this.#dropped++;
        if (!this.#slow) {
          this.#slow = true;
          this.#host.slowConsumer(this, new SlowConsumerError(this.subject, this.#dropped));
        }
      } else {
        this.#pendingBytes += payload.length;
        iterator.push(msg);
      }
    }
    if (this.max !== undefined && this.#received >= this.max) this.#close(undefined, false);
  }

  [Symbol.asyncIterator](): AsyncIterator<Msg> {
    if (!this.#iterator) {
      throw new InvalidOperationError('a subscription with a callback cannot be iterated');
    }
    return this.#iterator[Symbol.asyncIterator]();
  }

  unsubscribe(max?: number): void {
    if (this.#done) return;
    if (max !== undefined && max > 0) {
      this.max = max;
      this.#host.unsubscribeWire(this.sid, max);
      if (this.#received >= max) this.#close(undefined, false);
      return;
    }
    this.#close(undefined, true);
  }

  drain(): Promise<void> {
    if (this.#drained && !this.#done) return this.#drained;
    // As in nats.js: draining what is already gone is a mistake the caller should hear about.
    if (this.#host.isClosed()) return Promise.reject(new ClosedConnectionError());
    if (this.#done) {
      return Promise.reject(new InvalidOperationError('subscription is already closed'));
    }
    this.#draining = true;
    this.#host.unsubscribeWire(this.sid);
    // Once the server answers the flush it has no more messages for this sid; the drain ends
    // when the subscriber has handled what was already delivered.
    this.#drained = this.#host
      .flush()
      .catch(() => undefined)
      .then(() => {
        this.#close(undefined, false);
        return this.closed;
      })
      .then(() => undefined);
    return this.#drained;
  }

  /** Ends the subscription because of the connection (close) or the server (permissions). */
  fail(error: Error | undefined): void {
    this.#close(error, false);
  }

  isDraining(): boolean {
    return this.#draining;
  }

  isClosed(): boolean {
    return this.#done;
  }

  getSubject(): string {
    return this.subject;
  }

  getReceived(): number {
    return this.#received;
  }

  getProcessed(): number {
    return this.#processed;
  }

  getPending(): number {
    return this.#iterator?.length ?? 0;
  }

  getDropped(): number {
    return this.#dropped;
  }

  getID(): number {
    return this.sid;
  }

  getMax(): number | undefined {
    return this.max;
  }

  /** The number of messages still expected under `max`, for resubscribing after a reconnect. */
  remaining(): number | undefined {
    return this.max === undefined ? undefined : Math.max(this.max - this.#received, 0);
  }

  #close(error: Error | undefined, tellServer: boolean): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (tellServer) this.#host.unsubscribeWire(this.sid);
    this.#host.forget(this);
    if (this.#iterator) {
      this.#iterator.stop(error);
    } else {
      if (error && this.#callback) {
        try {
          this.#callback(error, undefined as unknown as Msg);
        } catch (callbackError) {
          this.#host.callbackFailed(callbackError);
        }
      }
      this.#resolveClosed(error);
    }
  }
}
