import type { DeliverPolicy } from '@slipstream/jsapi';
import type { ConsumerMessages } from './consumption.js';
import type { JetStreamClient } from './jetstream-types.js';
import type { JsMsg } from './jsmsg.js';

/**
 * Items as they come; `stop()` ends the iteration. A watch goes on until stopped; a listing
 * (history, keys, an object list) ends once what was there at the start was read.
 */
export interface Watcher<T> extends AsyncIterable<T> {
  stop(): void;
  /** Resolves when the iteration is over: undefined, or the error that ended it. */
  closed(): Promise<Error | undefined>;
}

/**
 * Pull requests of a watch live this long: a consumer the server lost (a restart) is noticed
 * after as long without a message, and replaced.
 */
const WATCH_EXPIRES_MS = 5000;

/** What a watch reads and when it ends. */
export interface WatchPlan {
  stream: string;
  subjects: string[];
  deliverPolicy: DeliverPolicy;
  startSeq?: number;
  headersOnly?: boolean;
  /** End once what was there at the start was read; else go on. */
  initialOnly: boolean;
}

/**
 * Turns a delivery into an item (undefined: skip it). `isUpdate` is false for what was there
 * at the start, true for what came later.
 */
export type WatchMapper<T> = (msg: JsMsg, isUpdate: boolean) => T | undefined;

/**
 * A watch of a stream's subjects, the way KV and object store watches work: an ordered
 * consumer, so nothing is lost or repeated across a gap or a restart. What was there at the
 * start comes first; the delivery whose consumer has nothing left pending is the last of it.
 */
export async function watchStream<T>(
  js: JetStreamClient,
  plan: WatchPlan,
  map: WatchMapper<T>,
): Promise<Watcher<T>> {
  const consumer = await js.consumers.get(plan.stream, {
    filter_subjects: plan.subjects,
    deliver_policy: plan.deliverPolicy,
    ...(plan.startSeq ? { opt_start_seq: plan.startSeq } : {}),
    ...(plan.headersOnly ? { headers_only: true } : {}),
  });
  const messages = await consumer.consume({ expires: WATCH_EXPIRES_MS });
  const { num_pending: atStart } = await consumer.info(true);
  const initialDone = plan.deliverPolicy === 'new' || atStart === 0;
  return new StreamWatch(plan.initialOnly, messages, initialDone, map, () => {
    consumer.delete().catch(() => undefined);
  });
}

class StreamWatch<T> implements Watcher<T> {
  readonly #initialOnly: boolean;
  readonly #messages: ConsumerMessages;
  readonly #map: WatchMapper<T>;
  readonly #dispose: () => void;
  #initialDone: boolean;
  #stopped = false;

  constructor(
    initialOnly: boolean,
    messages: ConsumerMessages,
    initialDone: boolean,
    map: WatchMapper<T>,
    dispose: () => void,
  ) {
    this.#initialOnly = initialOnly;
    this.#messages = messages;
    this.#initialDone = initialDone;
    this.#map = map;
    this.#dispose = dispose;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      if (this.#initialDone && this.#initialOnly) return;
      for await (const msg of this.#messages) {
        const isUpdate = this.#initialDone;
        if (msg.info.pending === 0) this.#initialDone = true;
        const item = this.#map(msg, isUpdate);
        if (item !== undefined) yield item;
        if (this.#initialDone && this.#initialOnly) return;
      }
    } finally {
      this.stop();
    }
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    void this.#messages.close();
    // the consumer is of no use to anyone else
    this.#dispose();
  }

  closed(): Promise<Error | undefined> {
    return this.#messages.closed();
  }
}
