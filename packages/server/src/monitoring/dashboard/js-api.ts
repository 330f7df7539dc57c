import { nuid } from '@slipstream/protocol';
import type { InternalClient, InternalMessage } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';

const REQUEST_TIMEOUT_MS = 5_000;

/** The JetStream API answered with an error (its JSON `error`), or did not answer in time. */
export class JsApiError extends Error {
  override readonly name = 'JsApiError';
  constructor(
    /** HTTP-like, as the API's `error.code` (404 stream not found…); 504 when no answer came. */
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A message as the API's MSG.GET answers it (base64 headers and data). */
export interface StoredMessage {
  subject: string;
  seq: number;
  time: string;
  hdrs?: string;
  data?: string;
}

/**
 * The dashboard's road to one account's `$JS.API`: requests published by an internal client in
 * that account's subject space, exactly as a client of the account would send them, so the
 * dashboard sees what the account's API answers and nothing else. Replies come back on one
 * wildcard inbox.
 */
export class JsApi {
  readonly #client: InternalClient;
  readonly #inbox = `_INBOX.dashboard.${nuid.next()}.`;
  /** Each request waiting for its reply; called without one when the dashboard closes. */
  readonly #pending = new Map<string, (message: InternalMessage | undefined) => void>();
  readonly #sub: Subscription;
  #next = 1;

  constructor(
    /** The account whose API this is. */
    readonly account: string,
    client: InternalClient,
  ) {
    this.#client = client;
    this.#sub = client.subscribe(`${this.#inbox}*`, (message) => {
      this.#pending.get(message.subject)?.(message);
    });
  }

  /** Sends `$JS.API.<operation>` with `body` and resolves with the reply's JSON. */
  request<T = Record<string, unknown>>(operation: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? new Uint8Array() : encodeJson(body);
    return this.publish(`$JS.API.${operation}`, payload);
  }

  /**
   * Publishes on `subject` (a stream's, for a PubAck; the API's) and resolves with the reply's
   * JSON, rejecting with its `error`.
   */
  publish<T = Record<string, unknown>>(
    subject: string,
    payload: Uint8Array,
    headers?: Uint8Array,
  ): Promise<T> {
    const reply = `${this.#inbox}${this.#next++}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(reply);
        reject(new JsApiError(504, `no answer on ${subject}`));
      }, REQUEST_TIMEOUT_MS);
      this.#pending.set(reply, (message) => {
        this.#pending.delete(reply);
        clearTimeout(timer);
        if (!message) {
          reject(new JsApiError(503, 'the monitoring port is closing'));
          return;
        }
        let answer: { error?: { code?: number; description?: string } };
        try {
          // The payload may be a view into a socket chunk: decoding copies it.
          answer = JSON.parse(new TextDecoder().decode(message.payload));
        } catch {
          reject(new JsApiError(502, `the answer on ${subject} is not JSON`));
          return;
        }
        if (answer.error) {
          reject(new JsApiError(answer.error.code ?? 500, answer.error.description ?? 'error'));
        } else {
          resolve(answer as T);
        }
      });
      this.#client.publish(subject, payload, { reply, ...(headers ? { headers } : {}) });
    });
  }

  /**
   * The first message at or after `seq` on `subject` (wildcards allowed), or undefined past the
   * last one.
   */
  async nextMessage(
    seq: number,
    subject: string,
    stream: string,
  ): Promise<StoredMessage | undefined> {
    try {
      const answer = await this.request<{ message: StoredMessage }>(`STREAM.MSG.GET.${stream}`, {
        seq,
        next_by_subj: subject,
      });
      return answer.message;
    } catch (error) {
      if (error instanceof JsApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The last message on `subject`, or undefined when there is none. */
  async lastMessage(subject: string, stream: string): Promise<StoredMessage | undefined> {
    try {
      const answer = await this.request<{ message: StoredMessage }>(`STREAM.MSG.GET.${stream}`, {
        last_by_subj: subject,
      });
      return answer.message;
    } catch (error) {
      if (error instanceof JsApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  close(): void {
    this.#client.unsubscribe(this.#sub);
    for (const settle of [...this.#pending.values()]) settle(undefined);
  }
}

export function encodeJson(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
