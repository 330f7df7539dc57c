import { createInbox, type NatsConnection, type Subscription } from '@slipstream/client';
import { nanos } from '@slipstream/jsapi';
import { encodeRequest } from './api-client.js';
import { JetStreamStatusError } from './errors.js';
import { HeartbeatMonitor } from './heartbeat-monitor.js';
import { type JsMsg, JsMsgImpl } from './jsmsg.js';
import type { ConsumerMessages } from './pull-batch.js';
import {
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

  constructor(nc: NatsConnection, options: PullConsumeOptions) {
    this.#nc = nc;
    this.#options = options;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#sub = nc.subscribe(this.#inbox);
    this.#heartbeat = new HeartbeatMonitor(options.idleHeartbeat, () => {
      this.#pending = 0;
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
        this.#heartbeat.alive();
        const status = pullStatus(msg);
        if (!status) {
          this.#pending = Math.max(0, this.#pending - 1);
          this.#topUp();
          yield new JsMsgImpl(msg, this.#nc, this.#options.ackTimeout);
        } else if (isHeartbeat(status)) {
          // alive, nothing to send
        } else if (endsRequestNormally(status) || isRequestLost(status)) {
          this.#pending = Math.max(0, this.#pending - status.pendingMessages);
          this.#topUp();
        } else if (isMaxWaitingExceeded(status)) {
          // one request was refused (too many waiting on the consumer); the others still run,
          // and the heartbeat clock asks again if they all end up lost
        } else {
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

  /** Asks for what is missing up to maxMessages once no more than the threshold is pending. */
  #topUp(): void {
    if (this.#ended || this.#pending > this.#options.thresholdMessages) return;
    const batch = this.#options.maxMessages - this.#pending;
    const body = encodeRequest('consumerNext', {
      batch,
      expires: nanos(this.#options.expires),
      idle_heartbeat: nanos(this.#options.idleHeartbeat),
    });
    this.#nc.publish(this.#options.subject, body, { reply: this.#inbox });
    this.#pending += batch;
    this.#heartbeat.alive();
  }

  #end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#heartbeat.stop();
    this.#sub.unsubscribe();
    this.#resolveClosed(error);
  }
}
