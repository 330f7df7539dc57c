import { QueuedIterator } from './queued-iterator.js';
import type { Status } from './types.js';

/** Status events an unread status() iterator keeps; older ones are dropped. */
const STATUS_BACKLOG = 1024;

/** The iterators status() handed out, and the events pushed to each of them. */
export class StatusEvents {
  readonly #listeners = new Set<QueuedIterator<Status>>();
  readonly #debug: boolean;

  constructor(debug: boolean) {
    this.#debug = debug;
  }

  /** An iterator of the events from now on; `ended` (the connection is closed): one that ends at once. */
  listen(ended: boolean): AsyncIterable<Status> {
    const listener = new QueuedIterator<Status>();
    if (ended) {
      listener.stop();
      return listener;
    }
    listener.onFinished = () => this.#listeners.delete(listener);
    this.#listeners.add(listener);
    return listener;
  }

  emit(status: Status): void {
    if (this.#debug) console.debug('[nats] status', status.type);
    for (const listener of this.#listeners) {
      if (listener.length >= STATUS_BACKLOG) listener.dropOldest();
      listener.push(status);
    }
  }

  /** The connection closed: every iterator ends once its events are read. */
  end(): void {
    for (const listener of this.#listeners) listener.stop();
    this.#listeners.clear();
  }
}
