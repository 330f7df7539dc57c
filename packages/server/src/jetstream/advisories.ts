/**
 * JetStream's advisories under `$JS.EVENT.ADVISORY.>`: what happened to a stream, and an audit
 * of every API request with its answer. Each is built and sent only when something listens on
 * its subject, so a server nobody watches does no work for them. The payloads follow
 * nats-server 2.9.10: the common `type`, `id` (a NUID) and `timestamp`, the event's fields, and
 * `domain` when the server has a JetStream domain.
 */
import {
  type ClientInfo,
  type JsEventName,
  jsEventSubject,
  jsEvents,
  type StreamState,
} from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import type { InternalClient } from '../internal-client.js';
import { nowNanos, wireTime } from './shared/wire-time.js';

/** Why an atomic batch was abandoned (nats-server 2.12's BatchAbandonReason). */
export type BatchAbandonReason = 'timeout' | 'large' | 'incomplete' | 'unsupported';

/** A stream's change, as the `action` of a stream_action advisory. */
export type StreamAction = 'create' | 'modify' | 'delete';

const STREAM_ACTION_EVENT = {
  create: 'streamCreated',
  modify: 'streamUpdated',
  delete: 'streamDeleted',
} as const satisfies Record<StreamAction, JsEventName>;

/** Asked on every API request, so worked out once. */
const API_AUDIT_SUBJECT = jsEventSubject('apiAudit');

/** One API request as the audit reports it: the subject, the raw body (if any) and the answer. */
export interface ApiExchange {
  readonly subject: string;
  readonly request: string;
  readonly response: string;
}

export class Advisories {
  constructor(
    private readonly client: InternalClient,
    /** The server's name, the `server` of audits and the `server` of their client info. */
    private readonly serverName: string,
    private readonly domain: string | undefined,
    /** The account whose JetStream this is, which 2.11's priority group advisories name. */
    readonly account: string,
  ) {}

  /** Whether anything listens for the API audit, so the dispatcher keeps a request's text. */
  get auditWanted(): boolean {
    return this.client.hasInterest(API_AUDIT_SUBJECT);
  }

  streamAction(stream: string, action: StreamAction): void {
    this.#publish(STREAM_ACTION_EVENT[action], stream, () => ({ stream, action }));
  }

  /** An API request of `account` answered; an empty request body is left out, as in nats-server. */
  apiAudit(account: string, exchange: ApiExchange): void {
    this.#publish('apiAudit', undefined, () => ({
      server: this.serverName,
      client: this.#requester(account),
      subject: exchange.subject,
      ...(exchange.request === '' ? {} : { request: exchange.request }),
      response: exchange.response,
    }));
  }

  /** A client of `account` began a snapshot of `stream`, which holds `state`. */
  snapshotCreate(account: string, stream: string, state: StreamState): void {
    this.#publish('snapshotCreate', stream, () => ({
      stream,
      state,
      client: this.#requester(account),
    }));
  }

  /** A snapshot sent from `start` to `end` (nanoseconds since the epoch). */
  snapshotComplete(account: string, stream: string, start: bigint, end: bigint): void {
    this.#publish('snapshotComplete', stream, () => ({
      stream,
      start: wireTime(start),
      end: wireTime(end),
      client: this.#requester(account),
    }));
  }

  restoreCreate(account: string, stream: string): void {
    this.#publish('restoreCreate', stream, () => ({ stream, client: this.#requester(account) }));
  }

  /** A restore of `bytes` received from `start` to `end` (nanoseconds since the epoch). */
  restoreComplete(
    account: string,
    stream: string,
    start: bigint,
    end: bigint,
    bytes: number,
  ): void {
    this.#publish('restoreComplete', stream, () => ({
      stream,
      start: wireTime(start),
      end: wireTime(end),
      bytes,
      client: this.#requester(account),
    }));
  }

  /**
   * Who asked. nats-server names the requester's account, round-trip time and server; the API
   * sees requests through the router, which does not say which connection sent them, so the
   * round-trip time is left out (nats-server omits it when zero too).
   */
  #requester(account: string): ClientInfo {
    return { acc: account, server: this.serverName };
  }

  /**
   * Our advisory for a stream whose data failed its checks (stream-damage.ts). With `held`
   * (damage found at start, before any client could listen) it waits for the first listener.
   */
  streamDamaged(stream: string, damage: { seqs?: number[]; reason: string }, held: boolean): void {
    const subject = jsEventSubject('streamDamaged', { stream });
    const fields = () => ({ account: this.account, stream, ...damage });
    if (held && !this.client.hasInterest(subject)) {
      // Sent once the new subscription is fully set up, which it is not yet when it is announced.
      this.client.whenInterest(subject, () =>
        queueMicrotask(() => this.#send('streamDamaged', subject, fields)),
      );
      return;
    }
    this.#send('streamDamaged', subject, fields);
  }

  /** nats-server 2.12: an atomic batch of `stream` was dropped before its commit, and why. */
  batchAbandoned(stream: string, batch: string, reason: BatchAbandonReason): void {
    this.#publish('streamBatchAbandoned', stream, () => ({ stream, batch, reason }));
  }

  /** An event about one consumer of `stream` (consumer-events.ts says which and with what). */
  consumerEvent(name: JsEventName, stream: string, consumer: string, fields: () => object): void {
    this.#send(name, jsEventSubject(name, { stream, consumer }), fields);
  }

  #publish(name: JsEventName, stream: string | undefined, fields: () => object): void {
    this.#send(name, jsEventSubject(name, { stream }), fields);
  }

  #send(name: JsEventName, subject: string, fields: () => object): void {
    if (!this.client.hasInterest(subject)) return;
    const event = {
      type: jsEvents[name].schema.shape.type.value,
      id: nuid.next(),
      timestamp: wireTime(nowNanos()),
      ...fields(),
      ...(this.domain ? { domain: this.domain } : {}),
    };
    this.client.publish(subject, Buffer.from(JSON.stringify(event)));
  }
}
