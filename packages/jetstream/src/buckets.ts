import type { NatsConnection } from '@slipstream/client';
import { bucketNameProblem, type StreamInfo } from '@slipstream/jsapi';
import { jetstream } from './entry-points.js';
import { InvalidNameError } from './errors.js';
import type { JetStreamClient, JetStreamManager } from './jetstream-types.js';
import type { Lister } from './lister.js';
import type { StoredMsg } from './stored-msg.js';
import type { MsgRequest } from './stream-api.js';

/** What KV and object store buckets share: a name, the client, a stream per bucket. */

export function checkBucket(name: string): string {
  const problem = bucketNameProblem(name);
  if (problem) throw new InvalidNameError(problem);
  return name;
}

/** `new Kvm(js)` and `new Objm(js)` also take a connection: a client with default options. */
export function asJetStreamClient(v: JetStreamClient | NatsConnection): JetStreamClient {
  return 'consumers' in v && 'jetstreamManager' in v ? v : jetstream(v);
}

/** The buckets whose streams are named `<prefix><bucket>`, as `status` makes of their info. */
export function bucketLister<T>(
  manager: () => Promise<JetStreamManager>,
  prefix: string,
  status: (bucket: string, info: StreamInfo) => T,
): Lister<T> {
  let streams: Lister<StreamInfo> | undefined;
  const next = async (): Promise<T[]> => {
    streams ??= (await manager()).streams.list();
    // a page may hold no bucket while later ones do
    for (let page = await streams.next(); page.length > 0; page = await streams.next()) {
      const buckets = page.filter((s) => s.config.name.startsWith(prefix));
      if (buckets.length > 0) {
        return buckets.map((s) => status(s.config.name.slice(prefix.length), s));
      }
    }
    return [];
  };
  return {
    next,
    async *[Symbol.asyncIterator]() {
      for (let page = await next(); page.length > 0; page = await next()) yield* page;
    },
  };
}

/** A message of a bucket's stream, by direct get when the stream allows it (any server answers). */
export function readStored(
  jsm: JetStreamManager,
  bucket: { stream: string; direct: boolean },
  query: MsgRequest,
): Promise<StoredMsg | null> {
  return bucket.direct
    ? jsm.direct.getMessage(bucket.stream, query)
    : jsm.streams.getMessage(bucket.stream, query);
}
