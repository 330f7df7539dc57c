import { createInbox, type NatsConnection, type Subscription } from '@slipstream/client';
import { nanos } from '@slipstream/jsapi';
import { encodeRequest } from './api-client.js';
import {
  type ConsumerNotification,
  ConsumerStatus,
  heartbeatNotification,
  type PullOptions,
  problemNotification,
} from './consumer-status.js';
import { JetStreamStatusError } from './errors.js';
import { HeartbeatMonitor } from './heartbeat-monitor.js';
import { type JsMsg, JsMsgImpl } from './jsmsg.js';
import type { ConsumerMessages } from './pull-batch.js';
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
}

/**
 * Endless consumption: pull requests on one inbox, topped up so that about `maxMessages` are
 * always on their way. Every request says how long it lives; when one expires (408) or ends
 * early, the server says how many of its messages it did not send (Nats-Pending-Messages), and
 * those are asked for again, as are those of a request the server dropped while shutting down.
 * Two missed heartbeats mean requests were lost without a word (a reconnect): everything is
 * asked for again. A status that will not go away by
 * asking again (consumer deleted, limits exceeded) ends the iteration with its error.
 * With `maxBytes`, bytes are budgeted the same way beside messages; a message's size is
 * counted as its subject, reply and payload (its headers are not visible undecoded), so the
 * estimate errs low and the client asks for less, never more, than the budget; the server's
 * Nats-Pending-Bytes of an ended request sets it right.
 */
export class PullConsume implements ConsumerMessages {
  readonly #nc: NatsConnection;
  readonly #options: PullConsumeOptions;
  readonly #inbox = createInbox();
  readonly #sub: Subscription;
  readonly #heartbeat: HeartbeatMonitor;
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (error: Error | undefined) => void;
  #ended = false;
  #error: Error | undefined;
  /** Messages asked for and not yet delivered or given up by the server. */
  #pending = 0;
  /** Bytes asked for and not yet delivered or given up (with maxBytes). */
  #pendingBytes = 0;
  readonly #status = new ConsumerStatus();

  constructor(nc: NatsConnection, options: PullConsumeOptions) {
    this.#nc = nc;
    this.#options = options;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#sub = nc.subscribe(this.#inbox);
    this.#heartbeat = new HeartbeatMonitor(options.idleHeartbeat, this.#sub, (count) => {
      this.#status.notify({ type: 'heartbeats_missed', count });
      this.#status.notify({ type: 'reset', name: options.consumer });
      this.#pending = 0;
      this.#pendingBytes = 0;
      this.#topUp();
    });
    try {
      this.#topUp();
    } catch (error) {
      this.#end(error as Error);
      throw error;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    try {
      for await (const msg of this.#sub) {
        const status = pullStatus(msg);
        if (!status) {
          this.#received(1, msg.subject.length + (msg.reply?.length ?? 0) + msg.data.length);
          yield new JsMsgImpl(msg, this.#nc, this.#options.ackTimeout);
        } else if (isHeartbeat(status)) {
          this.#status.notify(heartbeatNotification(msg));
        } else if (endsRequestNormally(status) || isRequestLost(status)) {
          const discard = discardNotification(status);
          if (discard) this.#status.notify(discard);
          this.#received(status.pendingMessages, status.pendingBytes);
        } else if (isMaxWaitingExceeded(status)) {
          // one request was refused (too many waiting on the consumer); the others still run,
          // and the heartbeat clock asks again if they all end up lost
          this.#status.notify(problemNotification(status.code, status.description));
        } else {
          this.#status.notify(problemNotification(status.code, status.description));
          this.#end(new JetStreamStatusError(status.description, status.code));
        }
      }
    } catch (error) {
      this.#end(error as Error);
    } finally {
      this.#end();
    }
    if (this.#error) throw this.#error;
  }

  async close(): Promise<void> {
    this.#end();
  }

  closed(): Promise<Error | undefined> {
    return this.#closed;
  }

  status(): AsyncIterable<ConsumerNotification> {
    return this.#status.iterate();
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
   * once on the next bigger message, again and again), else of messages.
   */
  #topUp(): void {
    if (this.#ended) return;
    const { maxMessages, thresholdMessages, maxBytes, thresholdBytes = 0 } = this.#options;
    const low =
      maxBytes === undefined
        ? this.#pending <= thresholdMessages
        : this.#pendingBytes <= thresholdBytes;
    if (!low) return;
    const options: PullOptions = {
      batch: Math.max(1, maxMessages - this.#pending),
      expires: this.#options.expires,
      idle_heartbeat: this.#options.idleHeartbeat,
    };
    if (maxBytes !== undefined) options.max_bytes = Math.max(1, maxBytes - this.#pendingBytes);
    const body = encodeRequest('consumerNext', {
      ...options,
      expires: nanos(options.expires),
      idle_heartbeat: nanos(options.idle_heartbeat),
    });
    this.#nc.publish(this.#options.subject, body, { reply: this.#inbox });
    this.#pending += options.batch;
    this.#pendingBytes += options.max_bytes ?? 0;
    this.#heartbeat.start();
    this.#status.notify({ type: 'next', options });
  }

  #end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#heartbeat.stop();
    this.#sub.unsubscribe();
    this.#status.end();
    this.#resolveClosed(error);
  }
}
