/**
 * Everything the object store API sends, through the account's internal client: messages stored
 * by publishing to the stream's subjects (so the stream's limits, rollups and acks apply as to
 * any publisher, the PubAck awaited on an inbox of its own), answers, deliveries and watch
 * notifications. It also knows when a message reaching the API's own subscriptions is one it is
 * sending itself: the router delivers to internal subscribers synchronously, so anything that
 * arrives while it publishes is its own.
 */
import { nuid } from '@slipstream/protocol';
import type { InternalClient } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';
import { deadline } from '../../timer-delay.js';
import { ObjectApiError } from './object-errors.js';

interface PubAckBody {
  seq?: number;
  error?: { description?: string };
}

export class StreamWriter {
  readonly #client: InternalClient;
  readonly #inbox = `_INBOX.${nuid.next()}`;
  readonly #waiting = new Map<string, (ack: PubAckBody) => void>();
  #next = 0;
  #depth = 0;
  #subscription: Subscription | undefined;

  constructor(
    client: InternalClient,
    /** How long a PubAck may take before the store counts as failed (milliseconds). */
    private readonly ackTimeout: number,
  ) {
    this.#client = client;
  }

  start(): void {
    this.#subscription = this.#client.subscribe(`${this.#inbox}.*`, (m) => {
      const resolve = this.#waiting.get(m.subject);
      if (!resolve) return;
      this.#waiting.delete(m.subject);
      let body: PubAckBody;
      try {
        body = JSON.parse(Buffer.from(m.payload).toString('utf8')) as PubAckBody;
      } catch {
        body = { error: { description: 'unreadable acknowledgement' } };
      }
      resolve(body);
    });
  }

  stop(): void {
    if (this.#subscription) this.#client.unsubscribe(this.#subscription);
    this.#subscription = undefined;
    for (const resolve of this.#waiting.values()) {
      resolve({ error: { description: 'JetStream is closing' } });
    }
    this.#waiting.clear();
  }

  /** Whether the message being delivered now is one this writer sends. */
  get sending(): boolean {
    return this.#depth > 0;
  }

  /**
   * Stores a message through the stream's publish path. The stream stores synchronously, inside
   * this call; the returned promise settles with its PubAck (refusals as `store_failed`).
   */
  store(subject: string, payload: Uint8Array, headers?: Uint8Array): Promise<number> {
    const reply = `${this.#inbox}.${++this.#next}`;
    const acked = new Promise<number>((resolve, reject) => {
      const stopTimer = deadline(this.ackTimeout, () => {
        this.#waiting.delete(reply);
        reject(new ObjectApiError('store_failed', `no acknowledgement for ${subject}`));
      });
      this.#waiting.set(reply, (ack) => {
        stopTimer();
        if (ack.error || typeof ack.seq !== 'number') {
          const why = ack.error?.description ?? 'no sequence in the acknowledgement';
          reject(new ObjectApiError('store_failed', why));
        } else {
          resolve(ack.seq);
        }
      });
    });
    this.publish(subject, payload, { reply, headers });
    return acked;
  }

  publish(
    subject: string,
    payload: Uint8Array,
    options: { reply?: string; headers?: Uint8Array } = {},
  ): void {
    this.#depth++;
    try {
      this.#client.publish(subject, payload, options);
    } finally {
      this.#depth--;
    }
  }

  /** Answers a request with a JSON body. */
  answer(reply: string | undefined, body: unknown): void {
    if (!reply) return;
    this.#depth++;
    try {
      this.#client.respond(reply, Buffer.from(JSON.stringify(body)));
    } finally {
      this.#depth--;
    }
  }
}
