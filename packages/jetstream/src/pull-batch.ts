import { createInbox, type NatsConnection, type Subscription } from '@slipstream/client';
import type { PullRequest } from '@slipstream/jsapi';
import { encodeRequest } from './api-client.js';
import {
  type ConsumerNotification,
  ConsumerStatus,
  heartbeatNotification,
  problemNotification,
} from './consumer-status.js';
import { JetStreamStatusError } from './errors.js';
import { HeartbeatMonitor } from './heartbeat-monitor.js';
import { type JsMsg, JsMsgImpl } from './jsmsg.js';
import {
  discardNotification,
  endsRequestNormally,
  isHeartbeat,
  pullStatus,
} from './pull-status.js';

/** The messages of one pull: iterate them; the iteration ends when the pull is over. */
export interface ConsumerMessages extends AsyncIterable<JsMsg> {
  /** Stops the pull early; the iteration ends after the messages already received. */
  close(): Promise<void>;
  /** Resolves when the pull is over: undefined when it ended normally, else the error. */
  closed(): Promise<Error | undefined>;
  /** Notifications (nats.js v3's ConsumerNotification) from this call on, until the end. */
  status(): AsyncIterable<ConsumerNotification>;
}

export interface PullBatchOptions {
  /** `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`. */
  subject: string;
  request: PullRequest & { batch: number };
  /** Milliseconds the server holds the request. */
  expires: number;
  /** Milliseconds between the server's idle heartbeats, 0 for none. */
  idleHeartbeat: number;
  /** Default timeout of `ackAck`. */
  ackTimeout: number;
}

/** The server may answer a little after `expires`; past this margin the pull is given up. */
const EXPIRY_MARGIN_MS = 1000;

/**
 * One pull request and its replies on an inbox of its own. The request body goes through the
 * jsapi pull request schema. Delivered messages come out as JsMsgs; status messages end the
 * pull (normally, or with a JetStreamStatusError); idle heartbeats only show the pull is alive,
 * and two missed ones end it with an error. `status()` tells heartbeats, what an ended request
 * left undelivered (`discard`), missed heartbeats and the problem statuses.
 */
export class PullBatch implements ConsumerMessages {
  readonly #nc: NatsConnection;
  readonly #options: PullBatchOptions;
  readonly #sub: Subscription;
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (error: Error | undefined) => void;
  #error: Error | undefined;
  #ended = false;
  #received = 0;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #heartbeat: HeartbeatMonitor;
  readonly #status = new ConsumerStatus();

  constructor(nc: NatsConnection, options: PullBatchOptions) {
    this.#nc = nc;
    this.#options = options;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    const body = encodeRequest('consumerNext', options.request);
    const inbox = createInbox();
    this.#sub = nc.subscribe(inbox);
    try {
      nc.publish(options.subject, body, { reply: inbox });
    } catch (error) {
      this.#sub.unsubscribe();
      throw error;
    }
    this.#expiryTimer = setTimeout(() => this.#end(), options.expires + EXPIRY_MARGIN_MS);
    this.#heartbeat = new HeartbeatMonitor(options.idleHeartbeat, this.#sub, (count) => {
      this.#status.notify({ type: 'heartbeats_missed', count });
      this.#end(new JetStreamStatusError('idle heartbeats missed', 409));
    });
    this.#heartbeat.start();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    try {
      for await (const msg of this.#sub) {
        const status = pullStatus(msg);
        if (status) {
          if (isHeartbeat(status)) {
            this.#status.notify(heartbeatNotification(msg));
            continue;
          }
          if (endsRequestNormally(status)) {
            const discard = discardNotification(status);
            if (discard) this.#status.notify(discard);
            this.#end();
          } else {
            this.#status.notify(problemNotification(status.code, status.description));
            this.#end(new JetStreamStatusError(status.description, status.code));
          }
          break;
        }
        this.#received++;
        if (this.#received >= this.#options.request.batch) this.#end();
        yield new JsMsgImpl(msg, this.#nc, this.#options.ackTimeout);
      }
    } catch (error) {
      // the subscription failed (the connection closed under it)
      this.#end(error as Error);
    } finally {
      // also when the caller breaks out early: the timers must not outlive the loop
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

  #end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    clearTimeout(this.#expiryTimer);
    this.#heartbeat.stop();
    this.#sub.unsubscribe();
    this.#status.end();
    this.#resolveClosed(error);
  }
}
