import { createInbox, type Msg, type NatsConnection, type Subscription } from '@slipstream/client';
import type { PullRequest } from '@slipstream/jsapi';
import { encodeRequest } from './api-client.js';
import { JetStreamStatusError } from './errors.js';
import { type JsMsg, JsMsgImpl } from './jsmsg.js';

/** The messages of one pull: iterate them; the iteration ends when the pull is over. */
export interface ConsumerMessages extends AsyncIterable<JsMsg> {
  /** Stops the pull early; the iteration ends after the messages already received. */
  close(): Promise<void>;
  /** Resolves when the pull is over: undefined when it ended normally, else the error. */
  closed(): Promise<Error | undefined>;
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

/**
 * The statuses that end a pull as planned: nothing (more) to deliver before it expired, the
 * next message too big for what is left of max_bytes, or a batch the server says is complete.
 */
function endsNormally(code: number, description: string): boolean {
  if (code === 404 || code === 408) return true;
  const text = description.toLowerCase();
  return code === 409 && (text === 'message size exceeds maxbytes' || text === 'batch completed');
}

/** The server may answer a little after `expires`; past this margin the pull is given up. */
const EXPIRY_MARGIN_MS = 1000;

/**
 * One pull request and its replies on an inbox of its own. The request body goes through the
 * jsapi pull request schema. Delivered messages come out as JsMsgs; status messages end the
 * pull (normally, or with a JetStreamStatusError); idle heartbeats only show the pull is alive,
 * and two missed ones end it with an error.
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
  #heartbeatTimer: ReturnType<typeof setTimeout> | undefined;

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
    this.#watchHeartbeat();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    try {
      for await (const msg of this.#sub) {
        this.#watchHeartbeat();
        const status = statusOf(msg);
        if (status) {
          if (status.code === 100) continue;
          this.#end(
            endsNormally(status.code, status.description)
              ? undefined
              : new JetStreamStatusError(status.description, status.code),
          );
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

  /** Restarts the missed-heartbeat clock: two intervals without a message end the pull. */
  #watchHeartbeat(): void {
    const interval = this.#options.idleHeartbeat;
    if (!interval) return;
    clearTimeout(this.#heartbeatTimer);
    this.#heartbeatTimer = setTimeout(
      () => this.#end(new JetStreamStatusError('idle heartbeats missed', 409)),
      interval * 2,
    );
  }

  #end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#heartbeatTimer);
    this.#sub.unsubscribe();
    this.#resolveClosed(error);
  }
}

/** A header-only status message (`NATS/1.0 408 Request Timeout`), or undefined for a message. */
function statusOf(msg: Msg): { code: number; description: string } | undefined {
  if (msg.data.length > 0 || msg.reply) return undefined;
  const code = msg.headers?.code ?? 0;
  return code ? { code, description: msg.headers!.description } : undefined;
}
