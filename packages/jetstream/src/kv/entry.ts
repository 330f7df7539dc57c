import { KV_OPERATION_HEADER, type KvOperation } from '@slipstream/jsapi';
import { decodeUtf8, type MsgHdrs } from '@slipstream/protocol';
import type { JsMsg } from '../jsmsg.js';
import type { StoredMsg } from '../stored-msg.js';
import type { KvEntry, KvWatchEntry } from './types.js';

/** Header a headers-only delivery carries instead of the payload: its length. */
const MSG_SIZE_HEADER = 'Nats-Msg-Size';
/** Header of the marker the server leaves where a value expired (nats-server 2.11). */
const MARKER_REASON_HEADER = 'Nats-Marker-Reason';

/**
 * A value, a deletion or a purge: a marker of an expired value counts as a purge (nothing
 * of the key is left), as @nats-io/kv reads it.
 */
function operationOf(headers: MsgHdrs | undefined): KvOperation {
  if (headers?.get(MARKER_REASON_HEADER) === 'MaxAge') return 'PURGE';
  return (headers?.get(KV_OPERATION_HEADER) || 'PUT') as KvOperation;
}

/** What a stored message says as a KV entry, however it was read. */
interface EntryParts {
  bucket: string;
  key: string;
  value: Uint8Array;
  headers: MsgHdrs | undefined;
  revision: number;
  created: Date;
}

class KvEntryImpl implements KvEntry {
  readonly bucket: string;
  readonly key: string;
  readonly rawKey: string;
  readonly value: Uint8Array;
  readonly created: Date;
  readonly revision: number;
  readonly operation: KvOperation;
  readonly length: number;
  delta?: number;

  constructor(parts: EntryParts) {
    this.bucket = parts.bucket;
    this.key = parts.key;
    this.rawKey = parts.key;
    this.value = parts.value;
    this.created = parts.created;
    this.revision = parts.revision;
    this.operation = operationOf(parts.headers);
    const size = parts.headers?.get(MSG_SIZE_HEADER);
    this.length = size ? Number(size) : parts.value.length;
  }

  json<T>(): T {
    return JSON.parse(this.string()) as T;
  }

  string(): string {
    return decodeUtf8(this.value);
  }
}

/** The entry of a message read by a (direct) get. */
export function storedEntry(bucket: string, key: string, msg: StoredMsg): KvEntry {
  return new KvEntryImpl({
    bucket,
    key,
    value: msg.data,
    headers: msg.header,
    revision: msg.seq,
    created: msg.time,
  });
}

/** The entry of a message delivered to a watch; `delta` is what the consumer has left. */
export function watchedEntry(
  bucket: string,
  key: string,
  msg: JsMsg,
  isUpdate: boolean,
): KvWatchEntry {
  const entry = new KvEntryImpl({
    bucket,
    key,
    value: msg.data,
    headers: msg.headers,
    revision: msg.seq,
    created: msg.time,
  }) as KvEntryImpl & KvWatchEntry;
  entry.delta = msg.info.pending;
  entry.isUpdate = isUpdate;
  return entry;
}
