import { OBJ_SUBJECT_PREFIX, objStreamName } from '@slipstream/jsapi';
import type { JetStreamClient } from '../jetstream-types.js';
import { type Watcher, watchStream } from '../ordered-consumer-watch.js';
import { decodeInfo } from './meta.js';
import type { ObjectWatchInfo } from './types.js';

export type ObjectWatcher = Watcher<ObjectWatchInfo>;

export interface ObjectWatchPlan {
  bucket: string;
  ignoreDeletes: boolean;
  /** Every version of each name, not just the latest. */
  includeHistory: boolean;
  /** End once the objects there at the start were read (a listing). */
  initialOnly: boolean;
}

/** A watch of a bucket's object infos (the metadata subjects). */
export function watchObjects(js: JetStreamClient, plan: ObjectWatchPlan): Promise<ObjectWatcher> {
  return watchStream(
    js,
    {
      stream: objStreamName(plan.bucket),
      subjects: [`${OBJ_SUBJECT_PREFIX}.${plan.bucket}.M.>`],
      deliverPolicy: plan.includeHistory ? 'all' : 'last_per_subject',
      initialOnly: plan.initialOnly,
    },
    (msg, isUpdate) => {
      const info = decodeInfo(msg);
      return plan.ignoreDeletes && info.deleted ? undefined : { ...info, isUpdate };
    },
  );
}
