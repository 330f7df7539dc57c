import type { Msg, NatsConnection, Subscription } from '@slipstream/client';
import {
  type ConsumerNotification,
  ConsumerStatus,
  heartbeatNotification,
  problemNotification,
} from './consumer-status.js';
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
 * message, heartbeats included, shows the consumer is alive. `status()` tells heartbeats, flow
 * control, missed heartbeats and any other status the server sends.
 */
export class PushConsumerMessages implements ConsumerMessages {
  readonly #nc: NatsConnection;
  readonly #options: PushConsumerMessagesOptions;
  readonly #sub: Subscription;
  readonly #heartbeat: HeartbeatMonitor;
  readonly #status = new ConsumerStatus();
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
    this.#heartbeat = new HeartbeatMonitor(options.idleHeartbeat, this.#sub, (count) => {
      this.#status.notify({ type: 'heartbeats_missed', count });
      void this.#missed();
    });
    this.#heartbeat.start();
    if (options.callback) void deliverToCallback(this, options.callback, (e) => this.#end(e));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    try {
      for await (const msg of this.#sub) {
        const code = statusCode(msg);
        if (code === 100) this.#answer(msg);
        else if (code) this.#status.notify(problemNotification(code, msg.headers!.description));
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
    return this.#status.iterate();
  }

  #answer(msg: Msg): void {
    if (msg.reply) {
      msg.respond();
      this.#status.notify({ type: 'flow_control' });
      return;
    }
    this.#status.notify(heartbeatNotification(msg));
    const stalled = msg.headers?.get(STALLED_HEADER);
    if (stalled) this.#nc.publish(stalled);
  }

  async #missed(): Promise<void> {
    const error = await this.#options.heartbeatsMissed();
    if (error) this.#end(error);
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

/**
 * The status code of a message from the server rather than the stream: no payload and a status
 * line; 100 for an idle heartbeat or a flow control request (the one with a reply subject), 0
 * for a delivered message (which always has a reply subject: its ack subject).
 */
function statusCode(msg: Msg): number {
  if (msg.data.length > 0 || !msg.headers?.code) return 0;
  const { code } = msg.headers;
  return code === 100 || !msg.reply ? code : 0;
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
