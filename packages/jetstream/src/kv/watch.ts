import { type DeliverPolicy, kvKeySubject, parseKvSubject } from '@slipstream/jsapi';
import type { JetStreamClient } from '../jetstream-types.js';
import { type Watcher, watchStream } from '../ordered-consumer-watch.js';
import { watchedEntry } from './entry.js';
import { type KvWatchEntry, KvWatchInclude, type KvWatchOptions } from './types.js';

/** The deliver policy a watch's options ask for. */
function deliverPolicy(options: KvWatchOptions): DeliverPolicy {
  if (options.resumeFromRevision) return 'by_start_sequence';
  if (options.include === KvWatchInclude.AllHistory) return 'all';
  if (options.include === KvWatchInclude.UpdatesOnly) return 'new';
  return 'last_per_subject';
}

/**
 * A watch of a bucket's keys (already checked), each delivery an entry; `subjectsOf` names the
 * bucket of the subjects (a mirror's origin).
 */
export function watchKeys(
  js: JetStreamClient,
  target: { bucket: string; subjectsOf: string; stream: string; keys: string[] },
  options: KvWatchOptions,
  initialOnly: boolean,
): Promise<Watcher<KvWatchEntry>> {
  const plan = {
    stream: target.stream,
    subjects: target.keys.map((k) => kvKeySubject(target.subjectsOf, k)),
    deliverPolicy: deliverPolicy(options),
    startSeq: options.resumeFromRevision,
    headersOnly: options.headers_only ?? false,
    initialOnly,
  };
  return watchStream(js, plan, (msg, isUpdate) => {
    const key = parseKvSubject(msg.subject)?.key;
    if (key === undefined) return undefined;
    const entry = watchedEntry(target.bucket, key, msg, isUpdate);
    return options.ignoreDeletes && entry.operation !== 'PUT' ? undefined : entry;
  });
}
