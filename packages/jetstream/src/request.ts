import { type Msg, type NatsConnection, type Payload, RequestError } from '@slipstream/client';
import type { MsgHdrs } from '@slipstream/protocol';
import { JetStreamNotEnabled } from './errors.js';

export interface RetryingRequestOptions {
  timeout: number;
  headers?: MsgHdrs;
  /** Attempts in all (default 1); only a no-responders answer is tried again. */
  retries?: number;
}

/** Waits before attempt `n + 1`: 250 ms, 500 ms, 1 s, then 2 s between attempts. */
export const retryDelay = (attempt: number) => Math.min(250 * 2 ** attempt, 2000);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A request to JetStream. No responders means nothing serves the subject right now (JetStream
 * off, or a stream briefly unavailable while it is created or recovers), so with `retries` it
 * is tried again after a growing delay. A timeout is not retried: the first attempt may have
 * been stored, and a second would store the message twice.
 */
export async function retryingRequest(
  nc: NatsConnection,
  subject: string,
  payload: Payload,
  options: RetryingRequestOptions,
): Promise<Msg> {
  const attempts = Math.max(1, options.retries ?? 1);
  const requestOptions = { timeout: options.timeout, headers: options.headers };
  for (let attempt = 0; ; attempt++) {
    try {
      return await nc.request(subject, payload, requestOptions);
    } catch (error) {
      if (!(error instanceof RequestError && error.isNoResponders())) throw error;
      if (attempt + 1 >= attempts) {
        throw new JetStreamNotEnabled(`no JetStream responder for '${subject}'`, { cause: error });
      }
      await sleep(retryDelay(attempt));
    }
  }
}
