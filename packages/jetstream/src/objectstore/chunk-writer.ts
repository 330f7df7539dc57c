import { sha256 } from '@noble/hashes/sha2';
import { objChunkSubject, objectDigest } from '@slipstream/jsapi';
import type { JetStreamClient } from '../jetstream-types.js';
import type { PubAck } from '../pub-ack.js';
import type { ObjectSource } from './types.js';

/** Chunks whose acknowledgement may be awaited at once: bounds memory, keeps the pipe full. */
const ACKS_IN_FLIGHT = 8;

export interface WrittenChunks {
  size: number;
  chunks: number;
  digest: string;
}

/** The bytes of a source, piece by piece as they come, never the whole of a stream at once. */
async function* pieces(source: ObjectSource): AsyncGenerator<Uint8Array> {
  if (typeof source === 'string') {
    yield new TextEncoder().encode(source);
    return;
  }
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  const stream = source instanceof Blob ? source.stream() : source;
  const reader = stream.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
  } finally {
    reader.releaseLock();
  }
}

/**
 * The bytes of `source` in chunks of exactly `chunkSize` bytes (the last one shorter, none for
 * an empty source), each a buffer of its own that the consumer may keep.
 */
export async function* chunksOf(
  source: ObjectSource,
  chunkSize: number,
): AsyncGenerator<Uint8Array> {
  let chunk = new Uint8Array(chunkSize);
  let filled = 0;
  for await (const piece of pieces(source)) {
    for (let offset = 0; offset < piece.length; ) {
      const n = Math.min(piece.length - offset, chunk.length - filled);
      chunk.set(piece.subarray(offset, offset + n), filled);
      filled += n;
      offset += n;
      if (filled === chunk.length) {
        yield chunk;
        chunk = new Uint8Array(chunkSize);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield chunk.subarray(0, filled);
}

/**
 * Publishes the content of `source` as chunks of `chunkSize` bytes on the subject of one object
 * version, hashing it on the way (SHA-256, incrementally). Up to ACKS_IN_FLIGHT chunks await
 * their acknowledgement at a time, so memory stays at a few chunks whatever the size.
 */
export async function writeChunks(
  js: JetStreamClient,
  target: { bucket: string; nuid: string; chunkSize: number; timeout?: number },
  source: ObjectSource,
): Promise<WrittenChunks> {
  const subject = objChunkSubject(target.bucket, target.nuid);
  const hash = sha256.create();
  const inFlight: Promise<PubAck>[] = [];
  let size = 0;
  let chunks = 0;
  const send = async (chunk: Uint8Array) => {
    hash.update(chunk);
    size += chunk.length;
    chunks++;
    const ack = js.publish(subject, chunk, target.timeout ? { timeout: target.timeout } : {});
    // a failure is seen when awaited; until then it must not count as unhandled
    ack.catch(() => undefined);
    inFlight.push(ack);
    if (inFlight.length >= ACKS_IN_FLIGHT) await inFlight.shift();
  };
  for await (const chunk of chunksOf(source, target.chunkSize)) await send(chunk);
  await Promise.all(inFlight);
  return { size, chunks, digest: objectDigest(hash.digest()) };
}
