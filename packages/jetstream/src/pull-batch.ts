import { createInbox, type Msg, type NatsConnection, type Subscription } from '@slipstream/client';
import type { PullRequest } from '@slipstream/jsapi';
import { encodeRequest } from './api-client.js';
import { heartbeatNotification, problemNotification } from './consumer-status.js';
import { Consumption } from './consumption.js';
import type { Delivery } from './delivery.js';
import { JetStreamStatusError } from './errors.js';
import type { HeartbeatMonitor } from './heartbeat-monitor.js';
import {
  discardNotification,
  endsRequestNormally,
  isHeartbeat,
  pullStatus,
} from './pull-status.js';

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
 * One pull request and its replies on an inbox of its own, handled as they arrive. The request
 * body goes through the jsapi pull request schema; it is sent once the reader asks for messages
 * (at once with a callback), as nats.js does. Delivered messages are handed on as JsMsgs;
 * status messages end the pull (normally, or with a JetStreamStatusError); idle heartbeats only
 * show the pull is alive, and two missed ones end it with an error. `status()` tells the
 * request sent (`next`), heartbeats, what an ended request left undelivered (`discard`),
 * missed heartbeats and the problem statuses.
 */
export class PullBatch extends Consumption {
  readonly #nc: NatsConnection;
  readonly #options: PullBatchOptions;
  readonly #sub: Subscription;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #heartbeat: HeartbeatMonitor;

  constructor(nc: NatsConnection, options: PullBatchOptions, delivery: Delivery) {
    super(delivery);
    this.#nc = nc;
    this.#options = options;
    const body = encodeRequest('consumerNext', options.request);
    const inbox = createInbox();
    const listening = this.listen(nc, inbox, {
      idleHeartbeat: options.idleHeartbeat,
      arrived: (msg) => this.#arrived(msg),
      missed: () => this.end(new JetStreamStatusError('idle heartbeats missed', 409)),
    });
    this.#sub = listening.sub;
    this.#heartbeat = listening.heartbeat;
    delivery.whenTaken(() => this.#ask(inbox, body));
  }

  #ask(inbox: string, body: string): void {
    if (this.ended) return;
    try {
      this.#nc.publish(this.#options.subject, body, { reply: inbox });
    } catch (error) {
      this.end(error as Error);
      return;
    }
    this.notifications.notify({ type: 'next', options: this.#options.request });
    this.#expiryTimer = setTimeout(() => this.end(), this.#options.expires + EXPIRY_MARGIN_MS);
    this.#heartbeat.start();
  }

  #arrived(msg: Msg): void {
    if (this.ended) return;
    const status = pullStatus(msg);
    if (!status) {
      this.deliverArrived(msg, this.#nc, this.#options.ackTimeout);
      if (this.getReceived() >= this.#options.request.batch) this.end();
    } else if (isHeartbeat(status)) {
      this.notifications.notify(heartbeatNotification(msg));
    } else if (endsRequestNormally(status)) {
      const discard = discardNotification(status);
      if (discard) this.notifications.notify(discard);
      this.end();
    } else {
      this.notifications.notify(problemNotification(status.code, status.description));
      this.end(new JetStreamStatusError(status.description, status.code));
    }
  }

  protected release(): void {
    clearTimeout(this.#expiryTimer);
    this.#heartbeat.stop();
    this.#sub.unsubscribe();
  }
}
