import {
  type Decoded,
  decodeJson,
  describeIssues,
  objectInfoSchema,
  type ObjectInfo as WireObjectInfo,
} from '@slipstream/jsapi';
import { type MsgHdrs, headers as newHeaders } from '@slipstream/protocol';
import { JetStreamError } from '../errors.js';
import type { ObjectInfo, ObjectStoreMeta } from './types.js';

/** The header that makes a metadata message replace the earlier ones of its subject. */
export const ROLLUP_HEADER = 'Nats-Rollup';

export function headersToWire(h: MsgHdrs | undefined): Record<string, string[]> | undefined {
  if (!h) return undefined;
  const out: Record<string, string[]> = {};
  for (const [key, values] of h) out[key] = [...values];
  return Object.keys(out).length ? out : undefined;
}

function headersFromWire(record: Record<string, string[]> | undefined): MsgHdrs | undefined {
  if (!record) return undefined;
  const h = newHeaders();
  for (const [key, values] of Object.entries(record)) for (const v of values) h.append(key, v);
  return h;
}

/** The JSON of an object's metadata message, as nats.go and @nats-io/obj write it. */
export function encodeInfo(info: Omit<ObjectInfo, 'revision'>): string {
  const wire: WireObjectInfo = {
    name: info.name,
    bucket: info.bucket,
    nuid: info.nuid,
    size: info.size,
    mtime: info.mtime,
    chunks: info.chunks,
    digest: info.digest,
  };
  if (info.description) wire.description = info.description;
  const h = headersToWire(info.headers);
  if (h) wire.headers = h;
  if (info.metadata) wire.metadata = info.metadata;
  if (info.options) wire.options = info.options as WireObjectInfo['options'];
  if (info.deleted) wire.deleted = true;
  return JSON.stringify(wire);
}

/** A metadata message however it was read (a get or a watch). */
export interface MetaMessage {
  data: Uint8Array;
  seq: number;
  timestamp: string;
}

/** An object's info from its metadata message; the revision is the message's sequence. */
export function decodeInfo(msg: MetaMessage): ObjectInfo {
  return infoFromWire(decodeJson(objectInfoSchema, msg.data), msg.seq, msg.timestamp);
}

/** An object's info from its decoded JSON, at `revision`, written at `timestamp` if it says not. */
export function infoFromWire(
  decoded: Decoded<WireObjectInfo>,
  revision: number,
  timestamp: string,
): ObjectInfo {
  if (!decoded.ok) {
    throw new JetStreamError(`invalid object info: ${describeIssues(decoded.issues)}`, {
      cause: decoded.error,
    });
  }
  const w = decoded.value;
  const info: ObjectInfo = {
    name: w.name,
    bucket: w.bucket,
    nuid: w.nuid ?? '',
    size: w.size ?? 0,
    chunks: w.chunks ?? 0,
    digest: w.digest ?? '',
    deleted: w.deleted ?? false,
    mtime: w.mtime ?? timestamp,
    revision,
  };
  if (w.description) info.description = w.description;
  const h = headersFromWire(w.headers);
  if (h) info.headers = h;
  if (w.metadata) info.metadata = w.metadata;
  if (w.options) info.options = w.options;
  return info;
}

/** The meta fields of an info, for a rewrite under the same or a new name. */
export function metaOf(info: ObjectInfo): ObjectStoreMeta {
  const { name, description, headers, options, metadata } = info;
  return { name, description, headers, options, metadata };
}
