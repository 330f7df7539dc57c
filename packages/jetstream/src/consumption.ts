import type { Msg, NatsConnection, Subscription } from '@slipstream/client';
import { type ConsumerNotification, ConsumerStatus } from './consumer-status.js';
import type { Delivery } from './delivery.js';
import { HeartbeatMonitor } from './heartbeat-monitor.js';
import { type JsMsg, JsMsgImpl } from './jsmsg.js';

/**
 * The messages of a consumption (fetch, consume, a push consumer's): iterate them, or give a
 * callback when starting it. The members of nats.js v3's ConsumerMessages.
 */
export interface ConsumerMessages extends AsyncIterable<JsMsg> {
  /**
   * Ends the consumption now; an iterator still yields the messages already received, then
   * ends, throwing `error` when one is given (closed() resolves with it).
   */
  stop(error?: Error): void;
  /** stop(), resolving as closed() does. */
  close(): Promise<Error | undefined>;
  /** Resolves when the consumption is over: undefined when it ended normally, else the error. */
  closed(): Promise<Error | undefined>;
  /** Notifications (nats.js v3's ConsumerNotification) from this call on, until the end. */
  status(): AsyncIterable<ConsumerNotification>;
  /** Messages taken by the iterator, or handed to the callback. */
  getProcessed(): number;
  /** Messages received and waiting for the iterator. */
  getPending(): number;
  /** Messages received from the server (status messages are not counted). */
  getReceived(): number;
}

/**
 * What every consumption shares: its delivery (callback or iterator, with the counts), its
 * notifications, and its end, which comes once: `release()` lets go of what the consumption
 * holds (subscription, timers), then the iterator and the status iterators end and closed()
 * resolves.
 */
export abstract class Consumption implements ConsumerMessages {
  protected readonly delivery: Delivery;
  protected readonly notifications = new ConsumerStatus();
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (error: Error | undefined) => void;
  #ended = false;

  constructor(delivery: Delivery) {
    this.delivery = delivery;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    return this.delivery.iterate(() => this.iterationOver());
  }

  stop(error?: Error): void {
    this.end(error);
  }

  close(): Promise<Error | undefined> {
    this.end();
    return this.#closed;
  }

  closed(): Promise<Error | undefined> {
    return this.#closed;
  }

  status(): AsyncIterable<ConsumerNotification> {
    return this.notifications.iterate();
  }

  getProcessed(): number {
    return this.delivery.getProcessed();
  }

  getPending(): number {
    return this.delivery.getPending();
  }

  getReceived(): number {
    return this.delivery.getReceived();
  }

  /** The iterator is done: at the end, or the reader broke out of its loop. */
  protected iterationOver(): void {
    this.end();
  }

  protected get ended(): boolean {
    return this.#ended;
  }

  /** Hands a message on; a callback that throws ends the consumption with its error. */
  protected deliver(msg: JsMsg): void {
    try {
      this.delivery.push(msg);
    } catch (error) {
      this.end(error as Error);
    }
  }

  /**
   * Hands on a message the server sent the consumer; one that is no JetStream message (its
   * reply is not an ack subject) ends the consumption with the error, as a throwing callback does.
   */
  protected deliverArrived(msg: Msg, nc: NatsConnection, ackTimeout: number): void {
    let jsMsg: JsMsg;
    try {
      jsMsg = new JsMsgImpl(msg, nc, ackTimeout);
    } catch (error) {
      this.end(error as Error);
      return;
    }
    this.deliver(jsMsg);
  }

  protected end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.release();
    this.delivery.stop(error);
    this.notifications.end();
    this.#resolveClosed(error);
  }

  /**
   * Subscribes where the consumer's messages arrive (the subscription's end ends the
   * consumption) and sets up the watch for its idle heartbeats over that subscription: `missed`
   * runs once a miss has been notified. The watch starts when the caller starts it.
   */
  protected listen(
    nc: NatsConnection,
    subject: string,
    options: {
      queue?: string | undefined;
      idleHeartbeat: number;
      arrived: (msg: Msg) => void;
      missed: () => void;
    },
  ): { sub: Subscription; heartbeat: HeartbeatMonitor } {
    const sub = nc.subscribe(subject, {
      ...(options.queue ? { queue: options.queue } : {}),
      callback: (error, msg) => (error ? this.end(error) : options.arrived(msg)),
    });
    // the connection closed or drained under it
    void sub.closed.then((error) => this.end(error));
    const signs = { getReceived: () => sub.getReceived(), getPending: () => this.getPending() };
    const heartbeat = new HeartbeatMonitor(options.idleHeartbeat, signs, (count) => {
      this.notifications.notify({ type: 'heartbeats_missed', count });
      options.missed();
    });
    return { sub, heartbeat };
  }

  /** Lets go of the subscription, timers and whatever else the consumption holds. */
  protected abstract release(): void;
}
