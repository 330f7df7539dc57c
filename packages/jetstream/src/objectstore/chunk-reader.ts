import { sha256 } from '@noble/hashes/sha2';
import {
  base64UrlDecode,
  OBJ_DIGEST_PREFIX,
  objChunkSubject,
  objStreamName,
} from '@slipstream/jsapi';
import type { ConsumerMessages } from '../consumption.js';
import { JetStreamError } from '../errors.js';
import type { JetStreamClient } from '../jetstream-types.js';
import type { JsMsg } from '../jsmsg.js';
import type { Consumer } from '../pull-consumer.js';
import type { ObjectInfo } from './types.js';

/** Chunks asked for ahead of the reader: what sits in memory while it is slow. */
const CHUNKS_AHEAD = 8;

/** True when `digest` (`SHA-256=<base64url>`, padded or not) names these hash bytes. */
export function digestMatches(digest: string, hash: Uint8Array): boolean {
  if (!digest.startsWith(OBJ_DIGEST_PREFIX)) return false;
  const expected = base64UrlDecode(digest.slice(OBJ_DIGEST_PREFIX.length));
  return expected?.length === hash.length && expected.every((b, i) => b === hash[i]);
}

/**
 * The content of one object version as a stream: its chunks read in order by an ordered
 * consumer, a few ahead of the reader, hashed as they pass. The stream closes after the last
 * chunk if size and SHA-256 match the info, else it errors; `error` says which.
 */
export function readChunks(
  js: JetStreamClient,
  info: ObjectInfo,
): { data: ReadableStream<Uint8Array>; error: Promise<Error | null> } {
  let settle!: (error: Error | null) => void;
  const error = new Promise<Error | null>((resolve) => {
    settle = resolve;
  });
  const hash = sha256.create();
  let size = 0;
  let received = 0;
  let consumer: Consumer | undefined;
  let messages: ConsumerMessages | undefined;
  let chunks: AsyncIterator<JsMsg> | undefined;

  const release = () => {
    void messages?.close();
    consumer?.delete().catch(() => undefined);
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    release();
    const problem =
      size !== info.size
        ? `object size is ${size} bytes, its info says ${info.size}`
        : !digestMatches(info.digest, hash.digest())
          ? 'object digest does not match its info'
          : undefined;
    if (!problem) {
      controller.close();
      settle(null);
      return;
    }
    const failure = new JetStreamError(problem);
    controller.error(failure);
    settle(failure);
  };

  const data = new ReadableStream<Uint8Array>({
    start(controller) {
      if (info.chunks === 0) finish(controller);
    },
    async pull(controller) {
      try {
        if (!chunks) {
          consumer = await js.consumers.get(objStreamName(info.bucket), {
            filter_subjects: objChunkSubject(info.bucket, info.nuid),
          });
          messages = await consumer.consume({ max_messages: CHUNKS_AHEAD });
          chunks = messages[Symbol.asyncIterator]();
        }
        const next = await chunks.next();
        if (next.done) throw new JetStreamError('object chunks ended early');
        const chunk = next.value.data;
        hash.update(chunk);
        size += chunk.length;
        received++;
        controller.enqueue(chunk);
        if (received === info.chunks) finish(controller);
      } catch (e) {
        release();
        controller.error(e);
        settle(e as Error);
      }
    },
    cancel() {
      release();
      settle(new JetStreamError('object read cancelled'));
    },
  });
  return { data, error };
}
