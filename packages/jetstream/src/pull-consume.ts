import { createInbox, type Msg, type NatsConnection, type Subscription } from '@slipstream/client';
import { nanos } from '@slipstream/jsapi';
import { encodeRequest } from './api-client.js';
import { heartbeatNotification, type PullOptions, problemNotification } from './consumer-status.js';
import { Consumption } from './consumption.js';
import type { Delivery } from './delivery.js';
import { JetStreamStatusError } from './errors.js';
import type { HeartbeatMonitor } from './heartbeat-monitor.js';
import {
  discardNotification,
  endsRequestNormally,
  isHeartbeat,
  isMaxWaitingExceeded,
  isRequestLost,
  pullStatus,
} from './pull-status.js';

export interface PullConsumeOptions {
  /** `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`. */
  subject: string;
  /** Messages asked for at most at any time. */
  maxMessages: number;
  /** Ask for more once no more than this many are still to come. */
  thresholdMessages: number;
  /** Bytes asked for at most at any time; undefined: messages only. */
  maxBytes?: number;
  /** Ask for more once no more than this many bytes are still to come. */
  thresholdBytes?: number;
  /** The consumer's name, for `reset` notifications. */
  consumer: string;
  /** Milliseconds each pull request lives. */
  expires: number;
  /** Milliseconds between the server's idle heartbeats. */
  idleHeartbeat: number;
  ackTimeout: number;
  /**
   * Called after two missed heartbeats: an error it returns (the consumer or stream found gone)
   * ends the consumption with it; undefined asks again.
   */
  heartbeatsMissed: () => Promise<Error | undefined>;
}

/**
 * Endless consumption: pull requests on one inbox, topped up so that about `maxMessages` are
 * always on their way; replies are handled as they arrive. Every request says how long it
 * lives; when one expires (408) or ends early, the server says how many of its messages it did
 * not send (Nats-Pending-Messages), and those are asked for again, as are those of a request the
 * server dropped while shutting down. A request is sent once the reader has taken what came
 * before (at once with a callback), so a slow reader is sent no more than it asked for. Two
 * missed heartbeats mean requests were lost without a word (a reconnect): everything is asked
 * for again. A status that will not go away by asking again (consumer deleted, limits exceeded)
 * ends the consumption with its error.
 * With `maxBytes`, bytes are budgeted the same way beside messages; a message's size is
 * counted as its subject, reply and payload (its headers are not visible undecoded), so the
 * estimate errs low and the client asks for less, never more, than the budget; the server's
 * Nats-Pending-Bytes of an ended request sets it right.
 */
export class PullConsume extends Consumption {
  readonly #nc: NatsConnection;
  readonly #options: PullConsumeOptions;
  readonly #inbox = createInbox();
  readonly #sub: Subscription;
  readonly #heartbeat: HeartbeatMonitor;
  /** Messages asked for and not yet delivered or given up by the server. */
  #pending = 0;
  /** Bytes asked for and not yet delivered or given up (with maxBytes). */
  #pendingBytes = 0;
  /** A request waits for the reader to catch up. */
  #requestWaiting = false;

  constructor(nc: NatsConnection, options: PullConsumeOptions, delivery: Delivery) {
    super(delivery);
    this.#nc = nc;
    this.#options = options;
    // options the server would refuse are refused by consume() itself
    encodeRequest('consumerNext', this.#request());
    const listening = this.listen(nc, this.#inbox, {
      idleHeartbeat: options.idleHeartbeat,
      arrived: (msg) => this.#arrived(msg),
      missed: () => void this.#missed(),
    });
    this.#sub = listening.sub;
    this.#heartbeat = listening.heartbeat;
    this.#topUp();
  }

  #arrived(msg: Msg): void {
    if (this.ended) return;
    const status = pullStatus(msg);
    if (!status) {
      this.deliverArrived(msg, this.#nc, this.#options.ackTimeout);
      this.#received(1, msg.subject.length + (msg.reply?.length ?? 0) + msg.data.length);
    } else if (isHeartbeat(status)) {
      this.notifications.notify(heartbeatNotification(msg));
    } else if (endsRequestNormally(status) || isRequestLost(status)) {
      const discard = discardNotification(status);
      if (discard) this.notifications.notify(discard);
      this.#received(status.pendingMessages, status.pendingBytes);
    } else if (isMaxWaitingExceeded(status)) {
      // one request was refused (too many waiting on the consumer); the others still run,
      // and the heartbeat clock asks again if they all end up lost
      this.notifications.notify(problemNotification(status.code, status.description));
    } else {
      this.notifications.notify(problemNotification(status.code, status.description));
      this.end(new JetStreamStatusError(status.description, status.code));
    }
  }

  /** Missed heartbeats: the caller may find the consumer gone; else everything is asked again. */
  async #missed(): Promise<void> {
    const error = await this.#options.heartbeatsMissed();
    if (this.ended) return;
    if (error) {
      this.end(error);
      return;
    }
    this.notifications.notify({ type: 'reset', name: this.#options.consumer });
    this.#pending = 0;
    this.#pendingBytes = 0;
    this.#topUp();
  }

  /** Messages and bytes no longer to come (delivered or given up); then maybe ask for more. */
  #received(messages: number, bytes: number): void {
    this.#pending = Math.max(0, this.#pending - messages);
    // every request has delivered its batch or ended: their unused bytes will never come
    this.#pendingBytes = this.#pending === 0 ? 0 : Math.max(0, this.#pendingBytes - bytes);
    this.#topUp();
  }

  /**
   * Asks for what is missing up to maxMessages (and maxBytes) once no more than the threshold
   * is pending: of bytes when they are budgeted (a request for a sliver of bytes would end at
   * once on the next bigger message, again and again), else of messages. The request leaves
   * when the reader has caught up, sized by what is pending then.
   */
  #topUp(): void {
    if (this.ended || this.#requestWaiting || !this.#low()) return;
    this.#requestWaiting = true;
    this.delivery.whenTaken(() => {
      this.#requestWaiting = false;
      if (!this.ended && this.#low()) this.#ask();
    });
  }

  #low(): boolean {
    const { thresholdMessages, maxBytes, thresholdBytes = 0 } = this.#options;
    return maxBytes === undefined
      ? this.#pending <= thresholdMessages
      : this.#pendingBytes <= thresholdBytes;
  }

  /** The request for what is missing now. */
  #request(): PullOptions {
    const { maxMessages, maxBytes } = this.#options;
    const request: PullOptions = {
      batch: Math.max(1, maxMessages - this.#pending),
      expires: nanos(this.#options.expires),
      idle_heartbeat: nanos(this.#options.idleHeartbeat),
    };
    if (maxBytes !== undefined) request.max_bytes = Math.max(1, maxBytes - this.#pendingBytes);
    return request;
  }

  #ask(): void {
    const request = this.#request();
    try {
      this.#nc.publish(this.#options.subject, encodeRequest('consumerNext', request), {
        reply: this.#inbox,
      });
    } catch (error) {
      this.end(error as Error);
      return;
    }
    this.#pending += request.batch;
    this.#pendingBytes += request.max_bytes ?? 0;
    this.#heartbeat.start();
    this.notifications.notify({ type: 'next', options: request });
  }

  protected release(): void {
    this.#heartbeat.stop();
    this.#sub.unsubscribe();
  }
}
