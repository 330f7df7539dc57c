/**
 * A put assembled by the server (`serverApi`): the metadata is announced first without a digest
 * (with the object's size and chunk count, so the size must be known before the first chunk),
 * then the chunks go to the upload's nonce subject as requests, a few answers awaited at a
 * time; the server counts, hashes and stores them and answers the last one with the ObjectInfo.
 */
import { OBJ_DEFAULT_CHUNK_SIZE } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import { JetStreamError } from '../errors.js';
import { chunksOf } from './chunk-writer.js';
import { headersToWire } from './meta.js';
import { type ApiAnswer, objectInfoOf, type ServerObjectApi } from './server-object-api.js';
import type { ObjectInfo, ObjectSource, ObjectStoreMeta, ObjectStorePutOpts } from './types.js';

/** Chunks whose answer may be awaited at once: bounds memory, keeps the pipe full. */
const CHUNKS_IN_FLIGHT = 8;

/** The byte size of a source, known up front, or the caller's word for a stream's. */
function sourceSize(source: Uint8Array | Blob | ReadableStream<Uint8Array>, given?: number) {
  if (source instanceof Uint8Array) return source.length;
  if (source instanceof Blob) return source.size;
  if (given === undefined || !Number.isSafeInteger(given) || given < 0) {
    throw new JetStreamError(
      'a put assembled by the server announces the size first: give a stream source its size (options.size)',
    );
  }
  return given;
}

export async function serverAssembledPut(
  api: ServerObjectApi,
  meta: ObjectStoreMeta,
  source: ObjectSource,
  options: ObjectStorePutOpts,
): Promise<ObjectInfo> {
  if (options.previousRevision !== undefined) {
    throw new JetStreamError(
      'the $OBJ API has no revision check: previousRevision needs JetStream',
    );
  }
  const bytes = typeof source === 'string' ? new TextEncoder().encode(source) : source;
  const size = sourceSize(bytes, options.size);
  const chunkSize = meta.options?.max_chunk_size || OBJ_DEFAULT_CHUNK_SIZE;
  const chunks = Math.ceil(size / chunkSize);
  const nonce = nuid.next();
  const announced = await api.request(api.infoSubject(meta.name), {
    name: meta.name,
    bucket: api.bucket,
    nonce,
    chunks,
    size,
    description: meta.description,
    headers: headersToWire(meta.headers),
    metadata: meta.metadata,
    options: { ...meta.options, max_chunk_size: chunkSize },
  });
  // An empty object is complete at its metadata: the answer is its ObjectInfo.
  let last = announced;
  const inFlight: Promise<ApiAnswer>[] = [];
  let sent = 0;
  let held: Uint8Array | undefined;
  const send = async (chunk: Uint8Array) => {
    const answer = api.request(api.chunkSubject(nonce), chunk);
    // a failure is seen when awaited; until then it must not count as unhandled
    answer.catch(() => undefined);
    inFlight.push(answer);
    sent++;
    if (inFlight.length >= CHUNKS_IN_FLIGHT) await inFlight.shift();
  };
  /** Sends a chunk that another follows: the announced last one is refused, it would be early. */
  const sendUnlessLast = (chunk: Uint8Array) => {
    if (sent + 1 >= chunks) throw sizeChanged(size, 'more');
    return send(chunk);
  };
  // One chunk is held back until the next shows up, so that a source longer than announced is
  // refused before its announced last chunk completes the upload.
  for await (const chunk of chunksOf(bytes, chunkSize)) {
    if (held) await sendUnlessLast(held);
    held = chunk;
  }
  if (held) {
    if (sent >= chunks) throw sizeChanged(size, 'more');
    await send(held);
  }
  if (sent !== chunks) throw sizeChanged(size, 'fewer');
  for (const answer of inFlight) last = await answer;
  return objectInfoOf(last);
}

/**
 * The source did not hold the announced size. The server keeps the upload pending until its
 * upload timeout (30 s by default), then purges what was stored of it.
 */
function sizeChanged(size: number, what: 'more' | 'fewer'): JetStreamError {
  return new JetStreamError(
    `the source held ${what} than the announced ${size} bytes; the server drops the upload after its timeout`,
  );
}
