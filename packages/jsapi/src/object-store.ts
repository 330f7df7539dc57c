import { decodeUtf8, encodeUtf8 } from '@slipstream/protocol';
import * as z from 'zod';
import { int, metadata, timestamp, uint } from './common.js';
import type { StorageType, StreamConfig } from './stream-config.js';

/**
 * Object stores are a client convention on top of a stream (nats.go jetstream/object.go):
 * bucket B lives in stream `OBJ_B`; an object's chunks go to `$O.B.C.<nuid>` and its metadata
 * (ObjectInfo JSON, published with `Nats-Rollup: sub`) to `$O.B.M.<base64url(name)>`.
 */

export const OBJ_STREAM_PREFIX = 'OBJ_';
export const OBJ_SUBJECT_PREFIX = '$O';
/** Default chunk size: 128 KiB. */
export const OBJ_DEFAULT_CHUNK_SIZE = 131_072;
/** Prefix of the `digest` field. */
export const OBJ_DIGEST_PREFIX = 'SHA-256=';

/** A link to another object, or to a whole bucket when `name` is absent. */
export const objectLinkSchema = z.looseObject({
  bucket: z.string(),
  name: z.string().optional(),
});
export type ObjectLink = z.infer<typeof objectLinkSchema>;

export const objectMetaOptionsSchema = z.looseObject({
  link: objectLinkSchema.optional(),
  max_chunk_size: int().optional(),
});
export type ObjectMetaOptions = z.infer<typeof objectMetaOptionsSchema>;

/** What a user says about an object. Headers are multi-valued like Go's http.Header. */
export const objectMetaSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  headers: z.record(z.string(), z.array(z.string())).optional(),
  metadata: metadata().optional(),
  options: objectMetaOptionsSchema.optional(),
});
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

/**
 * The metadata message of an object: its meta plus where and how it is stored. nuid, size,
 * mtime and chunks are optional because nats.js writes links (`options.link` set) without them.
 */
export const objectInfoSchema = objectMetaSchema.extend({
  bucket: z.string(),
  nuid: z.string().optional(),
  size: uint().optional(),
  mtime: timestamp().optional(),
  chunks: uint().optional(),
  digest: z.string().optional(),
  deleted: z.boolean().optional(),
});
export type ObjectInfo = z.infer<typeof objectInfoSchema>;

/** The stream that holds a bucket. */
export const objStreamName = (bucket: string) => `${OBJ_STREAM_PREFIX}${bucket}`;
/** Subject of the chunks of one object version. */
export const objChunkSubject = (bucket: string, nuid: string) =>
  `${OBJ_SUBJECT_PREFIX}.${bucket}.C.${nuid}`;
/** Subject of the metadata of an object name. */
export const objMetaSubject = (bucket: string, name: string) =>
  `${OBJ_SUBJECT_PREFIX}.${bucket}.M.${base64UrlEncode(encodeUtf8(name))}`;
/** The two wildcard subjects of a bucket's stream. */
export const objStreamSubjects = (bucket: string) => [
  `${OBJ_SUBJECT_PREFIX}.${bucket}.C.>`,
  `${OBJ_SUBJECT_PREFIX}.${bucket}.M.>`,
];

/** What an object store subject addresses, or undefined when it is not one. */
export type ParsedObjectSubject =
  | { bucket: string; kind: 'chunk'; nuid: string }
  | { bucket: string; kind: 'meta'; name: string };

export function parseObjectSubject(subject: string): ParsedObjectSubject | undefined {
  const m = /^\$O\.([^.]+)\.([CM])\.([^.]+)$/.exec(subject);
  if (!m) return undefined;
  const [, bucket, kind, token] = m;
  if (kind === 'C') return { bucket: bucket!, kind: 'chunk', nuid: token! };
  const bytes = base64UrlDecode(token!);
  if (!bytes) return undefined;
  return { bucket: bucket!, kind: 'meta', name: decodeUtf8(bytes) };
}

/** The `digest` value for a SHA-256 hash of the whole content. */
export const objectDigest = (sha256: Uint8Array) =>
  `${OBJ_DIGEST_PREFIX}${base64UrlEncode(sha256)}`;

/** URL-safe base64 with `=` padding (Go's base64.URLEncoding). */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_');
}

/** Inverse of base64UrlEncode (padding optional); undefined for malformed input. */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

export interface ObjectStoreOptions {
  bucket: string;
  description?: string;
  /** Nanoseconds an object lives; 0 = forever. */
  ttl?: number;
  maxBytes?: number;
  storage?: StorageType;
  replicas?: number;
  compression?: boolean;
  metadata?: Record<string, string>;
}

/** The stream config of an object store bucket, as the official clients create it. */
export function objectStoreStreamConfig(options: ObjectStoreOptions): StreamConfig {
  const config: StreamConfig = {
    name: objStreamName(options.bucket),
    subjects: objStreamSubjects(options.bucket),
    max_age: options.ttl ?? 0,
    max_bytes: options.maxBytes ?? -1,
    storage: options.storage ?? 'file',
    num_replicas: options.replicas ?? 1,
    discard: 'new',
    allow_rollup_hdrs: true,
    allow_direct: true,
  };
  if (options.description) config.description = options.description;
  if (options.compression) config.compression = 's2';
  if (options.metadata) config.metadata = options.metadata;
  return config;
}
