import type { NatsConnection } from '@slipstream/client';
import type { StorageType, StreamInfo } from '@slipstream/jsapi';
import type { MsgHdrs } from '@slipstream/protocol';

/** A link to another object, or to a whole bucket when `name` is absent. */
export interface ObjectStoreLink {
  bucket: string;
  name?: string;
}

export interface ObjectStoreMetaOptions {
  link?: ObjectStoreLink;
  /** Bytes per chunk (default 128 KiB). */
  max_chunk_size?: number;
}

/** What a writer says about an object; the shape of @nats-io/obj's ObjectStoreMeta. */
export interface ObjectStoreMeta {
  name: string;
  description?: string;
  headers?: MsgHdrs;
  options?: ObjectStoreMetaOptions;
  metadata?: Record<string, string>;
}

/** An object as its metadata message describes it. */
export interface ObjectInfo extends ObjectStoreMeta {
  bucket: string;
  /** Names the chunks of this version: `$O.<bucket>.C.<nuid>`. */
  nuid: string;
  size: number;
  chunks: number;
  /** `SHA-256=<base64url of the digest>`. */
  digest: string;
  deleted: boolean;
  /** When the object was written (RFC 3339). */
  mtime: string;
  /** The stream sequence of the metadata message. */
  revision: number;
}

export interface ObjectWatchInfo extends ObjectInfo {
  isUpdate: boolean;
}

/** A bucket's state; the fields of @nats-io/obj's ObjectStoreStatus. */
export interface ObjectStoreStatus {
  bucket: string;
  description: string;
  /** Nanoseconds an object lives; 0 forever. */
  ttl: number;
  storage: StorageType;
  replicas: number;
  sealed: boolean;
  /** Bytes the bucket's stream holds. */
  size: number;
  backingStore: 'JetStream';
  streamInfo: StreamInfo;
  metadata?: Record<string, string>;
  compression: boolean;
}

/** What a bucket is created with, as @nats-io/obj names it (ttl in nanoseconds, as there). */
export interface ObjectStoreOptions {
  description?: string;
  ttl?: number;
  storage: StorageType;
  replicas: number;
  max_bytes: number;
  /** Stream metadata (nats-server 2.10+); only sent when given. */
  metadata?: Record<string, string>;
  /** s2 compression (nats-server 2.10+); only sent when true. */
  compression?: boolean;
}

/** A read object: its info, its content as a stream, and how reading it ended. */
export interface ObjectResult {
  info: ObjectInfo;
  data: ReadableStream<Uint8Array>;
  /** null once the content was read whole and matched its digest; else the error. */
  error: Promise<Error | null>;
}

export interface ObjectStorePutOpts {
  /** Milliseconds to wait for each chunk's acknowledgement. */
  timeout?: number;
  /** The object's metadata must be at this revision (0: no such object yet). */
  previousRevision?: number;
  /**
   * The byte size of a ReadableStream source, which a put assembled by the server (`serverApi`)
   * announces before the first chunk; bytes, text and Blobs say their own.
   */
  size?: number;
}

/** How `Objm` opens its object stores; an addition to @nats-io/obj's. */
export interface ObjmOptions {
  /**
   * Use Slipstream's server-side object store API on `$OBJ.<bucket>` (our server only;
   * nats-server has none): `put` announces the metadata and publishes the chunks, and the
   * server hashes and stores them (a ReadableStream source needs `size` in the put options);
   * `get`, `getBlob`, `info`, `list` and `delete` are requests. The other methods stay on
   * JetStream. What differs: `info` of a deleted object is null and a link is followed,
   * `revision` is 0, and `delete` reports `purged: 0`.
   */
  serverApi?: boolean;
  /**
   * The core connection the `$OBJ` requests go through, needed with `serverApi` when `Objm` is
   * made from a JetStreamClient (made from a connection, it uses that one).
   */
  connection?: NatsConnection;
}

/** What `put` reads an object from: a stream, bytes, text, or a Blob (a browser File). */
export type ObjectSource = ReadableStream<Uint8Array> | Uint8Array | string | Blob;
