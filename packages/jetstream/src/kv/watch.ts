import { type DeliverPolicy, parseKvSubject } from '@slipstream/jsapi';
import type { JetStreamClient } from '../jetstream-client.js';
import type { JsMsg } from '../jsmsg.js';
import type { ConsumerMessages } from '../pull-batch.js';
import { watchedEntry } from './entry.js';
import type { KvWatchEntry, KvWatcher } from './types.js';

/** What a watch reads and when it ends. */
export interface WatchPlan {
  bucket: string;
  stream: string;
  /** Subjects of the keys watched. */
  subjects: string[];
  deliverPolicy: DeliverPolicy;
  startSeq?: number;
  headersOnly: boolean;
  ignoreDeletes: boolean;
  /** End once what was there at the start was read (history, keys); else go on. */
  initialOnly: boolean;
}

/**
 * A watch of a bucket: an ordered consumer over the keys' subjects, each delivery an entry.
 * The values present at the start come first (`isUpdate` false); the delivery whose consumer
 * has nothing left pending is the last of them.
 */
export async function watch(
  js: JetStreamClient,
  plan: WatchPlan,
): Promise<KvWatcher<KvWatchEntry>> {
  const consumer = await js.consumers.get(plan.stream, {
    filter_subjects: plan.subjects,
    deliver_policy: plan.deliverPolicy,
    ...(plan.startSeq ? { opt_start_seq: plan.startSeq } : {}),
    headers_only: plan.headersOnly,
  });
  const messages = await consumer.consume();
  const { num_pending: atStart } = await consumer.info(true);
  const updatesOnly = plan.deliverPolicy === 'new';
  return new KvWatch(plan, messages, updatesOnly || atStart === 0, () => {
    consumer.delete().catch(() => undefined);
  });
}

class KvWatch implements KvWatcher<KvWatchEntry> {
  readonly #plan: WatchPlan;
  readonly #messages: ConsumerMessages;
  readonly #dispose: () => void;
  #initialDone: boolean;
  #stopped = false;

  constructor(
    plan: WatchPlan,
    messages: ConsumerMessages,
    initialDone: boolean,
    dispose: () => void,
  ) {
    this.#plan = plan;
    this.#messages = messages;
    this.#initialDone = initialDone;
    this.#dispose = dispose;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<KvWatchEntry> {
    try {
      if (this.#initialDone && this.#plan.initialOnly) return;
      for await (const msg of this.#messages) {
        const entry = this.#entry(msg);
        if (entry) yield entry;
        if (this.#initialDone && this.#plan.initialOnly) return;
      }
    } finally {
      this.stop();
    }
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    void this.#messages.close();
    this.#dispose();
  }

  closed(): Promise<Error | undefined> {
    return this.#messages.closed();
  }

  #entry(msg: JsMsg): KvWatchEntry | undefined {
    const isUpdate = this.#initialDone;
    if (msg.info.pending === 0) this.#initialDone = true;
    const key = parseKvSubject(msg.subject)?.key;
    if (key === undefined) return undefined;
    const entry = watchedEntry(this.#plan.bucket, key, msg, isUpdate);
    return this.#plan.ignoreDeletes && entry.operation !== 'PUT' ? undefined : entry;
  }
}
