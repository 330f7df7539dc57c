export { Bucket, type KV } from './bucket.js';
export { Kvm } from './kvm.js';
export {
  type KvDeleteOptions,
  type KvEntry,
  type KvLimits,
  type KvOptions,
  type KvPurgeOptions,
  type KvPutOptions,
  type KvStatus,
  type KvWatchEntry,
  type KvWatcher,
  KvWatchInclude,
  type KvWatchOptions,
} from './types.js';
