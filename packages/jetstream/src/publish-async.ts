import {
  ClosedConnectionError,
  createInbox,
  type Msg,
  type NatsConnection,
  NoRespondersError,
  type Payload,
  type Subscription,
  TimeoutError,
} from '@slipstream/client';
import { JetStreamNotEnabled } from './errors.js';
import { decodePubAck, type PubAck } from './pub-ack.js';
import { type JetStreamPublishOptions, publishHeaders } from './publish-headers.js';

/** Options of one `publishAsync`: those of `publish` but retries (a no-responders fails it). */
export type PublishAsyncOptions = Omit<JetStreamPublishOptions, 'retries'>;

/** A message sent and the PubAck still to come. */
export interface PubAckFuture {
  readonly subject: string;
  /** The position of this publish among the client's `publishAsync` calls, from 0. */
  readonly index: number;
  /**
   * The PubAck, or the failure (API error, timeout, no responders, closed connection). A
   * failure nobody awaits here is still reported by `publishAsyncComplete()`.
   */
  readonly ok: Promise<PubAck>;
}

/** A `publishAsync` that got no PubAck, as `publishAsyncComplete()` reports it. */
export interface PublishAsyncFailure {
  readonly subject: string;
  readonly index: number;
  readonly msgID: string | undefined;
  readonly error: Error;
}

/** nats.go's PublishAsyncMaxPending default. */
export const DEFAULT_PUBLISH_ASYNC_MAX_PENDING = 4000;

interface InFlight {
  readonly subject: string;
  readonly index: number;
  readonly msgID: string | undefined;
  readonly deadline: number;
  resolve(ack: PubAck): void;
  reject(error: Error): void;
}

/**
 * Publishes without waiting for each PubAck, with at most `maxPending` acks outstanding: a
 * publish beyond that waits for room, so a fast producer holds bounded memory. The acks come
 * on one wildcard inbox (`<inbox>.<token>`), the token naming the publish; one timer follows
 * the oldest publish's deadline (acks arrive about in the order sent, so one timer per message
 * would be wasted work).
 */
export class AsyncPublisher {
  readonly #nc: NatsConnection;
  readonly #maxPending: number;
  /** Waiting publishes resume once no more than this many acks are outstanding. */
  readonly #resumeAt: number;
  readonly #timeout: number;
  readonly #inbox = createInbox();
  #sub: Subscription | undefined;
  readonly #inFlight = new Map<string, InFlight>();
  /**
   * Publishes waiting for room, woken together once a quarter of the window is free: they then
   * go out in one write, where waking one per ack would write one message at a time.
   */
  readonly #waitingForRoom: (() => void)[] = [];
  /** `publishAsyncComplete()` calls waiting for nothing to be in flight. */
  readonly #waitingForIdle: (() => void)[] = [];
  #failures: PublishAsyncFailure[] = [];
  #count = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(nc: NatsConnection, maxPending: number, timeout: number) {
    if (!(maxPending >= 1)) throw new RangeError('publishAsyncMaxPending must be at least 1');
    this.#nc = nc;
    this.#maxPending = maxPending;
    this.#resumeAt = Math.floor((maxPending * 3) / 4);
    this.#timeout = timeout;
  }

  get pending(): number {
    return this.#inFlight.size;
  }

  async publish(
    subject: string,
    payload: Payload,
    options: Partial<PublishAsyncOptions>,
  ): Promise<PubAckFuture> {
    while (this.#inFlight.size >= this.#maxPending) {
      await new Promise<void>((resolve) => this.#waitingForRoom.push(resolve));
    }
    this.#subscription();
    const index = this.#count++;
    const token = index.toString(36);
    let entry!: InFlight;
    const ok = new Promise<PubAck>((resolve, reject) => {
      entry = {
        subject,
        index,
        msgID: options.msgID,
        deadline: Date.now() + (options.timeout ?? this.#timeout),
        resolve,
        reject,
      };
    });
    // reported through publishAsyncComplete(), so an unawaited failure is no unhandled rejection
    ok.catch(() => {});
    this.#inFlight.set(token, entry);
    if (this.#inFlight.size === 1) this.#watchDeadline(entry.deadline);
    try {
      this.#nc.publish(subject, payload, {
        reply: `${this.#inbox}.${token}`,
        headers: publishHeaders(this.#nc, options),
      });
    } catch (error) {
      this.#settle(token, error as Error);
      throw error;
    }
    return { subject, index, ok };
  }

  /** Resolves once nothing is in flight, with the failures since the previous call. */
  async complete(): Promise<PublishAsyncFailure[]> {
    while (this.#inFlight.size > 0 || this.#waitingForRoom.length > 0) {
      await new Promise<void>((resolve) => this.#waitingForIdle.push(resolve));
    }
    const failures = this.#failures;
    this.#failures = [];
    return failures;
  }

  #subscription(): Subscription {
    if (this.#sub && !this.#sub.isClosed()) return this.#sub;
    const sub = this.#nc.subscribe(`${this.#inbox}.*`, {
      callback: (_error, msg) => this.#onAck(msg),
    });
    // a closed connection ends the subscription: nothing in flight can be answered any more
    void sub.closed.then((error) => {
      for (const token of [...this.#inFlight.keys()]) {
        this.#settle(token, error ?? new ClosedConnectionError());
      }
    });
    this.#sub = sub;
    return sub;
  }

  #onAck(msg: Msg): void {
    const token = msg.subject.slice(this.#inbox.length + 1);
    const entry = this.#inFlight.get(token);
    if (!entry) return; // timed out before
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      const cause = new NoRespondersError(entry.subject);
      this.#settle(
        token,
        new JetStreamNotEnabled(`no JetStream responder for '${entry.subject}'`, { cause }),
      );
      return;
    }
    try {
      this.#settle(token, undefined, decodePubAck(msg.data));
    } catch (error) {
      this.#settle(token, error as Error);
    }
  }

  #settle(token: string, error: Error | undefined, ack?: PubAck): void {
    const entry = this.#inFlight.get(token);
    if (!entry) return;
    this.#inFlight.delete(token);
    if (error) {
      this.#failures.push({
        subject: entry.subject,
        index: entry.index,
        msgID: entry.msgID,
        error,
      });
      entry.reject(error);
    } else {
      entry.resolve(ack!);
    }
    if (this.#inFlight.size <= this.#resumeAt) {
      for (const wake of this.#waitingForRoom.splice(0)) wake();
    }
    if (this.#inFlight.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      if (this.#waitingForRoom.length === 0) {
        for (const wake of this.#waitingForIdle.splice(0)) wake();
      }
    }
  }

  #watchDeadline(deadline: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, deadline - Date.now()));
  }

  /** Fails what passed its deadline, oldest first, and waits for the next deadline. */
  #expire(): void {
    const now = Date.now();
    for (const [token, entry] of this.#inFlight) {
      if (entry.deadline > now) {
        this.#watchDeadline(entry.deadline);
        return;
      }
      this.#settle(token, new TimeoutError());
    }
  }
}
