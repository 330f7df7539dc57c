import type { Msg } from '@slipstream/client';
import type { PullRequest } from '@slipstream/jsapi';

/**
 * One pull request as a `next` notification shows it: the body sent, times in nanoseconds (as
 * nats.js shows them).
 */
export type PullOptions = PullRequest & { batch: number };

/**
 * What a consumption tells about itself besides messages, named as nats.js v3's
 * ConsumerNotification so code switching clients keeps its `switch (n.type)`.
 */
export type ConsumerNotification =
  /** Two idle heartbeat intervals passed without a word; `count` heartbeats are missing. */
  | { type: 'heartbeats_missed'; count: number }
  /** The server's idle heartbeat, with where the consumer stands. */
  | { type: 'heartbeat'; lastConsumerSequence: number; lastStreamSequence: number }
  /** A pull request ended with this much of it undelivered (asked for again). */
  | { type: 'discard'; messagesLeft: number; bytesLeft: number }
  /** What was asked for is forgotten and asked for anew (after missed heartbeats). */
  | { type: 'reset'; name: string }
  /** A pull request was sent. */
  | { type: 'next'; options: PullOptions }
  /** The server asked for a flow control reply (push consumers); it was sent. */
  | { type: 'flow_control' }
  /** An ordered consumer could not replace its consumer: the stream `name` is gone. */
  | { type: 'stream_not_found'; name: string; consumerCreateFails: number }
  /** An ordered consumer replaced its consumer by this one (after a `reset`). */
  | { type: 'ordered_consumer_recreated'; name: string }
  /** `503`: nothing answered a pull request (no such consumer on the server). */
  | { type: 'no_responders'; code: number }
  /** `409 Consumer Deleted`. */
  | { type: 'consumer_deleted'; code: number; description: string }
  /** A `409 Exceeded ...` limit (max waiting, max request batch / bytes / expires). */
  | { type: 'exceeded_limits'; code: number; description: string }
  /** Any other status from the server. */
  | { type: 'debug'; code: number; description: string };

/**
 * Hands notifications to the `status()` iterators opened so far; nothing is kept before the
 * first `status()` call, so a consumption nobody watches buffers nothing.
 */
export class ConsumerStatus {
  readonly #listeners = new Set<(n: ConsumerNotification | undefined) => void>();
  #ended = false;

  notify(notification: ConsumerNotification): void {
    for (const listener of this.#listeners) listener(notification);
  }

  /** Ends every iterator, now and later. */
  end(): void {
    this.#ended = true;
    for (const listener of this.#listeners) listener(undefined);
    this.#listeners.clear();
  }

  /** From this call on, every notification until the end (or the iterator's return). */
  iterate(): AsyncIterable<ConsumerNotification> {
    const queue: (ConsumerNotification | undefined)[] = this.#ended ? [undefined] : [];
    let wake: (() => void) | undefined;
    const listener = (n: ConsumerNotification | undefined) => {
      queue.push(n);
      wake?.();
    };
    if (!this.#ended) this.#listeners.add(listener);
    const listeners = this.#listeners;
    return (async function* () {
      try {
        for (;;) {
          while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          const next = queue.shift();
          if (next === undefined) return;
          yield next;
        }
      } finally {
        listeners.delete(listener);
      }
    })();
  }
}

/** The server's idle heartbeat message as a notification: where the consumer stands. */
export function heartbeatNotification(msg: Msg): ConsumerNotification {
  return {
    type: 'heartbeat',
    lastConsumerSequence: Number(msg.headers?.get('Nats-Last-Consumer')) || 0,
    lastStreamSequence: Number(msg.headers?.get('Nats-Last-Stream')) || 0,
  };
}

/**
 * The notification of a status that is a problem for the consumption: sorted by code and
 * description as nats.js v3 sorts them.
 */
export function problemNotification(code: number, description: string): ConsumerNotification {
  if (code === 503) return { type: 'no_responders', code };
  const text = description.toLowerCase();
  if (text === 'consumer deleted') return { type: 'consumer_deleted', code, description };
  if (text.startsWith('exceeded')) return { type: 'exceeded_limits', code, description };
  return { type: 'debug', code, description };
}
