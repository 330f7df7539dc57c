export { ObjectStoreApiError } from './object-api-error.js';
export type { ObjectStore } from './object-store.js';
export { Objm } from './objm.js';
export type {
  ObjectInfo,
  ObjectResult,
  ObjectSource,
  ObjectStoreLink,
  ObjectStoreMeta,
  ObjectStoreMetaOptions,
  ObjectStoreOptions,
  ObjectStorePutOpts,
  ObjectStoreStatus,
  ObjectWatchInfo,
  ObjmOptions,
} from './types.js';
export type { ObjectWatcher } from './watch.js';
