import { createInbox } from '@slipstream/protocol';
import {
  ClosedConnectionError,
  InvalidArgumentError,
  NoRespondersError,
  TimeoutError,
} from './errors.js';
import type { MsgImpl } from './msg.js';
import { type ReplyHandler, type ReplyInbox, requestMany, sharedInbox } from './request-many.js';
import { RequestMux } from './request-mux.js';
import type { SubscriptionImpl } from './subscription.js';
import type {
  Msg,
  Payload,
  PublishOptions,
  RequestManyOptions,
  RequestOptions,
  SubscriptionOptions,
} from './types.js';

const DEFAULT_REQUEST_TIMEOUT = 1000;

/** What request/reply needs from the connection. */
export interface RequesterHost {
  readonly inboxPrefix: string;
  /** requestMany's maxWait unless given (the connection's `timeout` option, as nats.js). */
  readonly requestManyWait: number;
  publish(subject: string, payload: Payload | undefined, options: PublishOptions): void;
  /** Subscribes a reply inbox; the connection's own, so a draining connection still may. */
  subscribe(subject: string, options: SubscriptionOptions): SubscriptionImpl;
  isClosed(): boolean;
}

/**
 * Request/reply over the connection's publish and subscribe. Requests share one wildcard inbox
 * (request-mux.ts), made on the first request and again after it was lost; with `noMux` a
 * request has a subscription of its own, as in nats.js. The connection checks that it is open
 * and not draining before it hands a request here.
 */
export class Requester {
  readonly #host: RequesterHost;
  #mux: RequestMux | undefined;

  constructor(host: RequesterHost) {
    this.#host = host;
  }

  request(
    subject: string,
    payload: Payload | undefined,
    options: Partial<RequestOptions>,
  ): Promise<Msg> {
    const timeout = options.timeout ?? DEFAULT_REQUEST_TIMEOUT;
    if (!(timeout > 0)) return Promise.reject(new InvalidArgumentError('timeout must be > 0'));
    if (options.reply && !options.noMux) {
      // The shared inbox picks the reply subject; a reply of one's own needs noMux (as nats.js).
      return Promise.reject(new InvalidArgumentError('reply is only allowed with noMux'));
    }
    if (options.noMux) return this.#requestNoMux(subject, payload, timeout, options);
    const mux = this.#requestMux();
    return new Promise<Msg>((resolve, reject) => {
      const { token, reply } = mux.add({
        subject,
        deliver: (msg) => {
          clearTimeout(timer);
          mux.remove(token);
          if (msg.isNoResponders) reject(new NoRespondersError(subject));
          else resolve(msg);
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      const timer = setTimeout(() => {
        mux.remove(token);
        reject(new TimeoutError());
      }, timeout);
      try {
        this.#host.publish(subject, payload, { reply, headers: options.headers });
      } catch (error) {
        clearTimeout(timer);
        mux.remove(token);
        reject(error);
      }
    });
  }

  async #requestNoMux(
    subject: string,
    payload: Payload | undefined,
    timeout: number,
    options: Partial<RequestOptions>,
  ) {
    const reply = options.reply || createInbox(this.#host.inboxPrefix);
    const sub = this.#host.subscribe(reply, { max: 1, timeout });
    sub.requestSubject = subject;
    try {
      this.#host.publish(subject, payload, { reply, headers: options.headers });
    } catch (error) {
      sub.unsubscribe();
      throw error;
    }
    for await (const msg of sub) {
      if ((msg as MsgImpl).isNoResponders) throw new NoRespondersError(subject);
      return msg;
    }
    throw new ClosedConnectionError();
  }

  /** Starts a requestMany; throws what publishing the request throws. */
  requestMany(
    subject: string,
    payload: Payload | undefined,
    options: Partial<RequestManyOptions>,
  ): AsyncIterable<Msg> {
    return requestMany(
      options.noMux
        ? (handler) => this.#ownInbox(subject, handler)
        : sharedInbox(this.#requestMux()),
      subject,
      options,
      this.#host.requestManyWait,
      (reply) => this.#host.publish(subject, payload, { reply, headers: options.headers }),
    );
  }

  /** Fails the requests on the shared inbox that went to `subject`; false if there were none. */
  failSubject(subject: string, error: Error): boolean {
    return this.#mux?.failSubject(subject, error) ?? false;
  }

  /** The connection closed: every request on the shared inbox fails with `error`. */
  failAll(error: Error): void {
    this.#mux?.failAll(error);
  }

  /** The inbox of one requestMany with `noMux`: a subscription of its own, as in nats.js. */
  #ownInbox(subject: string, handler: ReplyHandler): ReplyInbox {
    const reply = createInbox(this.#host.inboxPrefix);
    const sub = this.#host.subscribe(reply, {
      // Errors also end the subscription: `closed` below reports them.
      callback: (error, msg) => {
        if (!error) handler.deliver(msg as MsgImpl);
      },
    });
    sub.requestSubject = subject;
    // Drained with the connection, the request ends quietly; closed with it, it fails as a
    // request on the shared inbox does.
    void sub.closed.then((error) =>
      handler.end(error ?? (this.#host.isClosed() ? new ClosedConnectionError() : undefined)),
    );
    return {
      reply,
      close: () => {
        if (!sub.isClosed()) sub.unsubscribe();
      },
    };
  }

  #requestMux(): RequestMux {
    if (this.#mux) return this.#mux;
    const mux = new RequestMux(this.#host.inboxPrefix);
    this.#host.subscribe(mux.subject, {
      callback: (error, msg) => {
        if (error) {
          // The inbox subscription is gone (e.g. denied): the next request starts a new one.
          if (this.#mux === mux) this.#mux = undefined;
          mux.failAll(error);
        } else {
          mux.dispatch(msg as MsgImpl);
        }
      },
    });
    this.#mux = mux;
    return mux;
  }
}
