import { type FrameWriter, isValidQueueName, isValidSubscribeSubject } from '@slipstream/protocol';
import {
  InvalidArgumentError,
  InvalidSubjectError,
  type PermissionViolationError,
} from './errors.js';
import { type SubscriptionHost, SubscriptionImpl } from './subscription.js';
import type { SubscriptionOptions } from './types.js';

/**
 * A connection's subscriptions, which outlive its sockets: sids are handed out once, messages
 * find their subscription by the sid the server echoes, and every new socket is told about all
 * of them again.
 */
export class Subscriptions {
  readonly #host: SubscriptionHost;
  readonly #bySid = new Map<string, SubscriptionImpl>();
  #nextSid = 1;

  constructor(host: SubscriptionHost) {
    this.#host = host;
  }

  /** Checks the arguments and makes a subscription with the next sid. */
  add(subject: string, options: SubscriptionOptions): SubscriptionImpl {
    if (typeof subject !== 'string' || !isValidSubscribeSubject(subject)) {
      throw new InvalidSubjectError(subject);
    }
    for (const key of ['max', 'timeout', 'maxPendingMsgs', 'maxPendingBytes'] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        throw new InvalidArgumentError(`subscription option ${key} must be a positive integer`);
      }
    }
    if (options.queue === '') {
      // nats.js reads an empty queue as none (its services library relies on that).
      options = { ...options, queue: undefined };
    } else if (options.queue !== undefined && !isValidQueueName(options.queue)) {
      throw new InvalidArgumentError(`invalid queue name: '${options.queue}'`);
    }
    const sub = new SubscriptionImpl(this.#host, this.#nextSid++, subject, options);
    this.#bySid.set(sub.sidKey, sub);
    return sub;
  }

  /** The subscription of a sid as the server echoes it. */
  get(sid: string): SubscriptionImpl | undefined {
    return this.#bySid.get(sid);
  }

  /** The subscription ended: messages still arriving for its sid are dropped. */
  forget(sub: SubscriptionImpl): void {
    this.#bySid.delete(sub.sidKey);
  }

  /** A copy of the list, safe to iterate while subscriptions end. */
  all(): SubscriptionImpl[] {
    return [...this.#bySid.values()];
  }

  /** Writes a SUB for each, and an UNSUB for what is left of a max: what a new socket needs. */
  resubscribe(writer: FrameWriter): void {
    for (const sub of this.#bySid.values()) {
      writer.sub(sub.subject, sub.sid, sub.queue);
      const remaining = sub.remaining();
      if (remaining !== undefined) writer.unsub(sub.sid, remaining);
    }
  }

  /** The server refused a subscription: every one on its subject (and queue, if named) fails. */
  failRefused(error: PermissionViolationError): void {
    for (const sub of this.#bySid.values()) {
      if (sub.subject === error.subject && (error.queue === undefined || sub.queue === error.queue))
        sub.fail(error);
    }
  }

  /**
   * The server refused a publish: the request with a reply subscription of its own (noMux) that
   * published to that subject fails now rather than at its timeout, as in nats.js.
   */
  failRequest(error: PermissionViolationError): void {
    for (const sub of this.#bySid.values()) {
      if (sub.requestSubject === error.subject) {
        sub.fail(error);
        return;
      }
    }
  }
}
