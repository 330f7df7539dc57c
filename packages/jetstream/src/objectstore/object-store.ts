import {
  OBJ_DEFAULT_CHUNK_SIZE,
  objChunkSubject,
  objectNameProblem,
  objMetaSubject,
  objStreamName,
  type StreamInfo,
} from '@slipstream/jsapi';
import { headers, nuid } from '@slipstream/protocol';
import { readStored } from '../buckets.js';
import { InvalidNameError, JetStreamError } from '../errors.js';
import type { JetStreamClient, JetStreamManager } from '../jetstream-types.js';
import type { PubAck } from '../pub-ack.js';
import type { PurgeResponse } from '../stream-api.js';
import { readChunks } from './chunk-reader.js';
import { writeChunks } from './chunk-writer.js';
import { decodeInfo, encodeInfo, metaOf, ROLLUP_HEADER } from './meta.js';
import { serverGet } from './server-get.js';
import type { ServerObjectApi } from './server-object-api.js';
import { serverAssembledPut } from './server-put.js';
import type {
  ObjectInfo,
  ObjectResult,
  ObjectSource,
  ObjectStoreMeta,
  ObjectStorePutOpts,
  ObjectStoreStatus,
} from './types.js';
import { type ObjectWatcher, watchObjects } from './watch.js';

/** An object store bucket; the methods of @nats-io/obj's ObjectStore. */
export interface ObjectStore {
  /** The object's info (also of a deleted one), or null when there never was one. */
  info(name: string): Promise<ObjectInfo | null>;
  /** The objects there now (not the deleted ones). */
  list(): Promise<ObjectInfo[]>;
  /** The object's content as a stream (a link is followed); null when there is none. */
  get(name: string): Promise<ObjectResult | null>;
  getBlob(name: string): Promise<Uint8Array | null>;
  /** Stores an object, streamed in chunks; replaces (then purges) an earlier version. */
  put(
    meta: ObjectStoreMeta,
    source: ObjectSource,
    options?: ObjectStorePutOpts,
  ): Promise<ObjectInfo>;
  putBlob(
    meta: ObjectStoreMeta,
    data: Uint8Array | null,
    options?: ObjectStorePutOpts,
  ): Promise<ObjectInfo>;
  /** Marks the object deleted and purges its chunks. */
  delete(name: string): Promise<PurgeResponse>;
  /** A new name that points at an object (of this or another bucket). */
  link(name: string, target: ObjectInfo): Promise<ObjectInfo>;
  /** A new name that points at a whole bucket. */
  linkStore(name: string, bucket: ObjectStore): Promise<ObjectInfo>;
  watch(options?: { ignoreDeletes?: boolean; includeHistory?: boolean }): Promise<ObjectWatcher>;
  /** Makes the bucket read-only. */
  seal(): Promise<ObjectStoreStatus>;
  status(): Promise<ObjectStoreStatus>;
  /** Changes an object's meta; a new name moves it (the new name must be free). */
  update(name: string, meta: Partial<ObjectStoreMeta>): Promise<PubAck>;
  destroy(): Promise<boolean>;
}

function checkName(name: string): string {
  const problem = objectNameProblem(name);
  if (problem) throw new InvalidNameError(problem);
  return name;
}

const EMPTY = new Uint8Array(0);

/**
 * A bucket on its stream `OBJ_<bucket>`, laid out as nats.go and @nats-io/obj lay it out: an
 * object version's content in chunks on `$O.<bucket>.C.<nuid>`, its info as JSON on
 * `$O.<bucket>.M.<base64url(name)>`, published with a subject rollup so only the latest stays.
 */
export class ObjectStoreImpl implements ObjectStore {
  readonly bucket: string;
  readonly stream: string;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #direct: boolean;
  /** Set when put, get, info, list and delete go through the server's `$OBJ` API. */
  readonly #serverApi: ServerObjectApi | undefined;

  /** `direct`: the stream allows direct gets (read from its info). */
  constructor(
    js: JetStreamClient,
    jsm: JetStreamManager,
    bucket: string,
    direct: boolean,
    serverApi?: ServerObjectApi,
  ) {
    this.#js = js;
    this.#jsm = jsm;
    this.bucket = bucket;
    this.stream = objStreamName(bucket);
    this.#direct = direct;
    this.#serverApi = serverApi;
  }

  async info(name: string): Promise<ObjectInfo | null> {
    if (this.#serverApi) return this.#serverApi.info(checkName(name));
    return this.#storedInfo(name);
  }

  /** The info as the metadata message holds it (a deleted object's too, a link as a link). */
  async #storedInfo(name: string): Promise<ObjectInfo | null> {
    const query = { last_by_subj: objMetaSubject(this.bucket, checkName(name)) };
    const msg = await readStored(this.#jsm, { stream: this.stream, direct: this.#direct }, query);
    return msg ? decodeInfo(msg) : null;
  }

  async list(): Promise<ObjectInfo[]> {
    if (this.#serverApi) return this.#serverApi.list();
    const found: ObjectInfo[] = [];
    for await (const info of await this.watch({ ignoreDeletes: true, initialOnly: true })) {
      found.push(info);
    }
    return found;
  }

  async get(name: string): Promise<ObjectResult | null> {
    if (this.#serverApi) return serverGet(this.#serverApi, checkName(name));
    const info = await this.#storedInfo(name);
    if (!info || info.deleted) return null;
    const link = info.options?.link;
    if (link) {
      if (!link.name) throw new JetStreamError(`object '${name}' is a link to a bucket`);
      // the other bucket's stream may not allow direct gets: read it the way that always works
      return new ObjectStoreImpl(this.#js, this.#jsm, link.bucket, false).get(link.name);
    }
    return { info, ...readChunks(this.#js, info) };
  }

  async getBlob(name: string): Promise<Uint8Array | null> {
    const result = await this.get(name);
    if (!result) return null;
    const bytes = new Uint8Array(await new Response(result.data).arrayBuffer());
    const error = await result.error;
    if (error) throw error;
    return bytes;
  }

  async put(
    meta: ObjectStoreMeta,
    source: ObjectSource,
    options: ObjectStorePutOpts = {},
  ): Promise<ObjectInfo> {
    checkName(meta.name);
    if (meta.options?.link) throw new JetStreamError('a link is made with link() or linkStore()');
    if (this.#serverApi) return serverAssembledPut(this.#serverApi, meta, source, options);
    const previous = await this.#storedInfo(meta.name);
    const id = nuid.next();
    const chunkSize = meta.options?.max_chunk_size || OBJ_DEFAULT_CHUNK_SIZE;
    let written: Awaited<ReturnType<typeof writeChunks>>;
    let info: ObjectInfo;
    try {
      written = await writeChunks(
        this.#js,
        { bucket: this.bucket, nuid: id, chunkSize, timeout: options.timeout },
        source,
      );
      info = await this.#publishInfo(
        {
          ...meta,
          options: { ...meta.options, max_chunk_size: chunkSize },
          bucket: this.bucket,
          nuid: id,
          ...written,
          deleted: false,
          mtime: new Date().toISOString(),
        },
        options.previousRevision,
      );
    } catch (error) {
      // the chunks of a version whose info never made it are garbage
      await this.#purgeChunks(id).catch(() => undefined);
      throw error;
    }
    if (previous?.nuid && !previous.deleted) await this.#purgeChunks(previous.nuid);
    return info;
  }

  putBlob(
    meta: ObjectStoreMeta,
    data: Uint8Array | null,
    options?: ObjectStorePutOpts,
  ): Promise<ObjectInfo> {
    return this.put(meta, data ?? EMPTY, options);
  }

  async delete(name: string): Promise<PurgeResponse> {
    if (this.#serverApi) return this.#serverApi.delete(checkName(name));
    const info = await this.#storedInfo(name);
    if (!info) throw new JetStreamError(`object '${name}' not found`);
    if (info.deleted) return { success: true, purged: 0 };
    await this.#publishInfo({
      ...info,
      size: 0,
      chunks: 0,
      digest: '',
      deleted: true,
      mtime: new Date().toISOString(),
    });
    return info.nuid ? this.#purgeChunks(info.nuid) : { success: true, purged: 0 };
  }

  async link(name: string, target: ObjectInfo): Promise<ObjectInfo> {
    if (target.deleted) throw new JetStreamError('an object that is deleted cannot be linked');
    if (target.options?.link) throw new JetStreamError('a link cannot be linked');
    return this.#publishLink(name, { bucket: target.bucket, name: target.name });
  }

  async linkStore(name: string, bucket: ObjectStore): Promise<ObjectInfo> {
    if (!(bucket instanceof ObjectStoreImpl)) throw new JetStreamError('not an object store');
    return this.#publishLink(name, { bucket: bucket.bucket });
  }

  watch(
    options: { ignoreDeletes?: boolean; includeHistory?: boolean; initialOnly?: boolean } = {},
  ): Promise<ObjectWatcher> {
    return watchObjects(this.#js, {
      bucket: this.bucket,
      ignoreDeletes: options.ignoreDeletes ?? false,
      includeHistory: options.includeHistory ?? false,
      initialOnly: options.initialOnly ?? false,
    });
  }

  async seal(): Promise<ObjectStoreStatus> {
    return objectStoreStatus(
      this.bucket,
      await this.#jsm.streams.update(this.stream, { sealed: true }),
    );
  }

  async status(): Promise<ObjectStoreStatus> {
    return objectStoreStatus(this.bucket, await this.#jsm.streams.info(this.stream));
  }

  async update(name: string, meta: Partial<ObjectStoreMeta>): Promise<PubAck> {
    const info = await this.#storedInfo(name);
    if (!info || info.deleted) throw new JetStreamError(`object '${name}' not found`);
    const newName = meta.name ?? name;
    if (newName !== name) {
      const taken = await this.#storedInfo(checkName(newName));
      if (taken && !taken.deleted) {
        throw new JetStreamError(`an object named '${newName}' already exists`);
      }
    }
    const updated = { ...info, ...metaOf({ ...info, ...meta, name: newName }) };
    const ack = await this.#publishMeta(updated);
    // the old name's metadata goes: the object lives on under the new one
    if (newName !== name) {
      await this.#jsm.streams.purge(this.stream, { filter: objMetaSubject(this.bucket, name) });
    }
    return ack;
  }

  destroy(): Promise<boolean> {
    return this.#jsm.streams.delete(this.stream);
  }

  async #publishLink(name: string, link: { bucket: string; name?: string }) {
    const existing = await this.#storedInfo(checkName(name));
    if (existing && !existing.deleted && !existing.options?.link) {
      throw new JetStreamError(`an object named '${name}' already exists`);
    }
    return this.#publishInfo({
      name,
      options: { link },
      bucket: this.bucket,
      nuid: '',
      size: 0,
      chunks: 0,
      digest: '',
      deleted: false,
      mtime: new Date().toISOString(),
    });
  }

  async #publishInfo(
    info: Omit<ObjectInfo, 'revision'>,
    previousRevision?: number,
  ): Promise<ObjectInfo> {
    const ack = await this.#publishMeta(info, previousRevision);
    return { ...info, revision: ack.seq };
  }

  #publishMeta(info: Omit<ObjectInfo, 'revision'>, previousRevision?: number): Promise<PubAck> {
    const h = headers();
    h.set(ROLLUP_HEADER, 'sub');
    return this.#js.publish(objMetaSubject(this.bucket, info.name), encodeInfo(info), {
      headers: h,
      ...(previousRevision !== undefined
        ? { expect: { lastSubjectSequence: previousRevision } }
        : {}),
    });
  }

  #purgeChunks(id: string): Promise<PurgeResponse> {
    return this.#jsm.streams.purge(this.stream, { filter: objChunkSubject(this.bucket, id) });
  }
}

/** A bucket's status from its stream's info. */
export function objectStoreStatus(bucket: string, info: StreamInfo): ObjectStoreStatus {
  const { config, state } = info;
  const status: ObjectStoreStatus = {
    bucket,
    description: config.description ?? '',
    ttl: config.max_age ?? 0,
    storage: config.storage ?? 'file',
    replicas: config.num_replicas ?? 1,
    sealed: config.sealed ?? false,
    size: state.bytes,
    backingStore: 'JetStream',
    streamInfo: info,
    compression: config.compression === 's2',
  };
  if (config.metadata) status.metadata = config.metadata;
  return status;
}
