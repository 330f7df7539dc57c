import type { Msg, NatsConnection, Subscription } from '@slipstream/client';
import { heartbeatNotification, problemNotification } from './consumer-status.js';
import { Consumption } from './consumption.js';
import type { Delivery } from './delivery.js';
import type { HeartbeatMonitor } from './heartbeat-monitor.js';

export interface PushConsumerMessagesOptions {
  /** The consumer's deliver_subject. */
  deliverSubject: string;
  /** The consumer's deliver_group: the subscription joins it as a queue. */
  queue?: string | undefined;
  /** Milliseconds between the consumer's idle heartbeats, 0 for none. */
  idleHeartbeat: number;
  ackTimeout: number;
  /**
   * Called after two heartbeat intervals without a sign from the server; an error it returns
   * ends the messages with that error, undefined keeps waiting.
   */
  heartbeatsMissed: () => Promise<Error | undefined>;
}

/** Header a heartbeat carries while the consumer waits for a flow control reply. */
const STALLED_HEADER = 'Nats-Consumer-Stalled';

/**
 * The messages a push consumer sends to its deliver subject, handled as they arrive. The
 * server's control messages (status 100, no payload) are answered here and not handed out: a
 * flow control request gets an empty reply once the reader has taken the messages before it
 * (the server stops sending until then, which paces it to the reader), and a heartbeat saying
 * the consumer is stalled gets one on the subject it names (the reply to an earlier request was
 * lost). Every message, heartbeats included, shows the consumer is alive. `status()` tells
 * heartbeats, flow control, missed heartbeats and any other status the server sends.
 */
export class PushConsumerMessages extends Consumption {
  readonly #nc: NatsConnection;
  readonly #options: PushConsumerMessagesOptions;
  readonly #sub: Subscription;
  readonly #heartbeat: HeartbeatMonitor;

  constructor(nc: NatsConnection, options: PushConsumerMessagesOptions, delivery: Delivery) {
    super(delivery);
    this.#nc = nc;
    this.#options = options;
    const listening = this.listen(nc, options.deliverSubject, {
      queue: options.queue,
      idleHeartbeat: options.idleHeartbeat,
      arrived: (msg) => this.#arrived(msg),
      missed: () => void this.#missed(),
    });
    this.#sub = listening.sub;
    this.#heartbeat = listening.heartbeat;
    this.#heartbeat.start();
  }

  #arrived(msg: Msg): void {
    if (this.ended) return;
    const code = statusCode(msg);
    if (code === 100) this.#answer(msg);
    else if (code) this.notifications.notify(problemNotification(code, msg.headers!.description));
    else this.deliverArrived(msg, this.#nc, this.#options.ackTimeout);
  }

  #answer(msg: Msg): void {
    if (msg.reply) {
      this.delivery.whenTaken(() => {
        if (this.ended) return;
        msg.respond();
        this.notifications.notify({ type: 'flow_control' });
      });
      return;
    }
    this.notifications.notify(heartbeatNotification(msg));
    const stalled = msg.headers?.get(STALLED_HEADER);
    if (stalled) this.#nc.publish(stalled);
  }

  async #missed(): Promise<void> {
    const error = await this.#options.heartbeatsMissed();
    if (error) this.end(error);
  }

  protected release(): void {
    this.#heartbeat.stop();
    this.#sub.unsubscribe();
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
