import type { Msg, NatsConnection, Subscription } from '@slipstream/client';
import { type ConsumerNotification, noNotifications } from './consumer-status.js';
import { HeartbeatMonitor } from './heartbeat-monitor.js';
import { type JsMsg, JsMsgImpl } from './jsmsg.js';
import type { ConsumerMessages } from './pull-batch.js';

export interface PushConsumerMessagesOptions {
  /** The consumer's deliver_subject. */
  deliverSubject: string;
  /** The consumer's deliver_group: the subscription joins it as a queue. */
  queue?: string;
  /** Milliseconds between the consumer's idle heartbeats, 0 for none. */
  idleHeartbeat: number;
  ackTimeout: number;
  /**
   * Called after two heartbeat intervals without a sign from the server; an error it returns
   * ends the messages with that error, undefined keeps waiting.
   */
  heartbeatsMissed: () => Promise<Error | undefined>;
  /** Hand the messages to this function instead of the iterator; what it throws ends them. */
  callback?: (msg: JsMsg) => void;
}

/** Header a heartbeat carries while the consumer waits for a flow control reply. */
const STALLED_HEADER = 'Nats-Consumer-Stalled';

/**
 * The messages a push consumer sends to its deliver subject. The server's control messages
 * (status 100, no payload) are answered here and not handed out: a flow control request gets an
 * empty reply, without which the server stops sending, and a heartbeat saying the consumer is
 * stalled gets one on the subject it names (the reply to an earlier request was lost). Every
 * message, heartbeats included, shows the consumer is alive.
 */
export class PushConsumerMessages implements ConsumerMessages {
  readonly #nc: NatsConnection;
  readonly #options: PushConsumerMessagesOptions;
  readonly #sub: Subscription;
  readonly #heartbeat: HeartbeatMonitor;
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (error: Error | undefined) => void;
  #ended = false;
  #error: Error | undefined;

  constructor(nc: NatsConnection, options: PushConsumerMessagesOptions) {
    this.#nc = nc;
    this.#options = options;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#sub = nc.subscribe(
      options.deliverSubject,
      options.queue ? { queue: options.queue } : undefined,
    );
    this.#heartbeat = new HeartbeatMonitor(options.idleHeartbeat, () => void this.#missed());
    this.#heartbeat.alive();
    if (options.callback) void deliverToCallback(this, options.callback, (e) => this.#end(e));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    try {
      for await (const msg of this.#sub) {
        this.#heartbeat.alive();
        if (isControl(msg)) this.#answer(msg);
        else yield new JsMsgImpl(msg, this.#nc, this.#options.ackTimeout);
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
    return noNotifications(this.#closed);
  }

  #answer(msg: Msg): void {
    if (msg.reply) {
      msg.respond();
      return;
    }
    const stalled = msg.headers?.get(STALLED_HEADER);
    if (stalled) this.#nc.publish(stalled);
  }

  async #missed(): Promise<void> {
    const error = await this.#options.heartbeatsMissed();
    if (error) this.#end(error);
    else this.#heartbeat.alive();
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

/** An idle heartbeat or a flow control request: status 100 and no payload. */
function isControl(msg: Msg): boolean {
  return msg.data.length === 0 && msg.headers?.code === 100;
}

/**
 * Consumes `messages` for a callback (nats.js's `consume({ callback })`); an exception of the
 * callback ends them through `fail`.
 */
export async function deliverToCallback(
  messages: AsyncIterable<JsMsg>,
  callback: (msg: JsMsg) => void,
  fail: (error: Error) => void,
): Promise<void> {
  try {
    for await (const msg of messages) {
      try {
        callback(msg);
      } catch (error) {
        fail(error as Error);
      }
    }
  } catch {
    // the messages ended with an error: their closed() resolves with it
  }
}
