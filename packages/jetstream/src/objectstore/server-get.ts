/**
 * A get through the server's `$OBJ` API (`serverApi`): a subscription on a fresh inbox, then the
 * request naming it as `deliver_subject`. The answer is the ObjectInfo; the chunks follow on the
 * inbox, hashed as they pass, and an empty message whose `Nats-Obj-End` header carries the
 * digest ends them. The server stops after each window of bytes with a flow control request,
 * answered only once the reader has read up to it, so a slow reader holds at most a window.
 */

import { sha256 } from '@noble/hashes/sha2';
import { createInbox, type Msg } from '@slipstream/client';
import { JetStreamError } from '../errors.js';
import { digestMatches } from './chunk-reader.js';
import { isNotFound, objectInfoOf, type ServerObjectApi } from './server-object-api.js';
import type { ObjectInfo, ObjectResult } from './types.js';

const END_HEADER = 'Nats-Obj-End';
const FLOW_CONTROL_STATUS = 100;

export async function serverGet(api: ServerObjectApi, name: string): Promise<ObjectResult | null> {
  const deliver = createInbox();
  const subscription = api.nc.subscribe(deliver);
  let info: ObjectInfo;
  try {
    info = objectInfoOf(
      await api.request(api.subject, { op: 'get', name, deliver_subject: deliver }),
    );
  } catch (error) {
    subscription.unsubscribe();
    if (isNotFound(error)) return null;
    throw error;
  }
  const messages = subscription[Symbol.asyncIterator]();
  /** The next message, or a failure once the server has been silent for the timeout. */
  const next = async (): Promise<Msg> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new JetStreamError(`no chunk of '${name}' within ${api.timeout} ms`)),
        api.timeout,
      );
    });
    try {
      const result = await Promise.race([messages.next(), silence]);
      if (result.done) throw new JetStreamError('object chunks ended early');
      return result.value;
    } finally {
      clearTimeout(timer);
    }
  };

  let settle!: (error: Error | null) => void;
  const error = new Promise<Error | null>((resolve) => {
    settle = resolve;
  });
  const hash = sha256.create();
  let size = 0;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, failure: Error) => {
    subscription.unsubscribe();
    controller.error(failure);
    settle(failure);
  };
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, digest: string) => {
    subscription.unsubscribe();
    const problem =
      size !== info.size
        ? `object size is ${size} bytes, its info says ${info.size}`
        : digest !== info.digest || !digestMatches(info.digest, hash.digest())
          ? 'object digest does not match its info'
          : undefined;
    if (problem) return fail(controller, new JetStreamError(problem));
    controller.close();
    settle(null);
  };

  const data = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const msg = await next();
          if (msg.headers?.code === FLOW_CONTROL_STATUS) {
            msg.respond();
            continue;
          }
          const digest = msg.headers?.get(END_HEADER);
          if (msg.data.length === 0 && msg.headers?.has(END_HEADER))
            return end(controller, digest!);
          hash.update(msg.data);
          size += msg.data.length;
          controller.enqueue(msg.data);
          return;
        }
      } catch (e) {
        fail(controller, e as Error);
      }
    },
    cancel() {
      subscription.unsubscribe();
      settle(new JetStreamError('object read cancelled'));
    },
  });
  return { info, data, error };
}
