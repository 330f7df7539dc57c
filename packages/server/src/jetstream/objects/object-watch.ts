/**
 * Watch notifications for buckets in the official layout: an ObjectInfo published on
 * `$OBJ.<bucket>.info.<base64url name>` for every metadata record stored on `$O.<bucket>.M.>`,
 * whoever wrote it, but built and sent only while someone listens there. (In the document layout
 * the stored records are themselves published on those subjects, so nothing is added.)
 */
import type { InternalMessage } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';
import type { ObjectApiHost } from './object-api-host.js';
import { objectInfo, readStoredRecord } from './object-meta.js';

const OFFICIAL_META = '$O.*.M.>';

export class ObjectWatch {
  #subscription: Subscription | undefined;

  constructor(private readonly host: ObjectApiHost) {}

  start(): void {
    this.#subscription = this.host.client.subscribe(OFFICIAL_META, (m) => this.#metaPublished(m));
  }

  stop(): void {
    if (this.#subscription) this.host.client.unsubscribe(this.#subscription);
    this.#subscription = undefined;
  }

  #metaPublished(message: InternalMessage): void {
    const [, bucket, , encodedName] = message.subject.split('.');
    const notifySubject = `$OBJ.${bucket}.info.${encodedName}`;
    if (!this.host.client.hasInterest(notifySubject)) return;
    // The stream may store it before or after this callback: look once the publish is done, and
    // notify only when what the stream holds is this message (it was not refused).
    const published = Buffer.from(message.payload);
    queueMicrotask(() => {
      const stream = this.host.account.streams.get(`OBJ_${bucket}`);
      let stored: ReturnType<NonNullable<typeof stream>['store']['loadLast']>;
      try {
        stored = stream?.store.loadLast(message.subject);
      } catch {
        return;
      }
      if (!stored || !published.equals(stored.payload)) return;
      const record = readStoredRecord(stored.payload);
      if (!record) return;
      this.host.writer.publish(notifySubject, Buffer.from(JSON.stringify(objectInfo(record))));
    });
  }
}
