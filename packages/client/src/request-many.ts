import { NoRespondersError } from './errors.js';
import type { MsgImpl } from './msg.js';
import { QueuedIterator } from './queued-iterator.js';
import type { RequestMux } from './request-mux.js';
import { type Msg, type RequestManyOptions, RequestStrategy } from './types.js';

const DEFAULT_JITTER = 300;

/**
 * Sends one request and yields every reply until the strategy says stop: a message count, the
 * overall `maxWait`, a stall of `jitter` ms, or an empty sentinel message. The iterator holds at
 * most `maxMessages` replies when counting; other strategies are bounded by `maxWait`.
 */
export function requestMany(
  mux: RequestMux,
  subject: string,
  options: Partial<RequestManyOptions>,
  defaultWait: number,
  send: (reply: string) => void,
): AsyncIterable<Msg> {
  const strategy = options.strategy ?? RequestStrategy.Timer;
  const maxWait = options.maxWait ?? defaultWait;
  const iterator = new QueuedIterator<Msg>();
  let received = 0;
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (error?: Error) => {
    clearTimeout(overall);
    clearTimeout(stallTimer);
    mux.remove(token);
    iterator.stop(error);
  };
  const overall = setTimeout(() => stop(), maxWait);
  const { token, reply } = mux.add({
    subject,
    deliver: (msg: MsgImpl) => {
      if (msg.isStatus && msg.headers?.code === 503) {
        stop(received === 0 ? new NoRespondersError(subject) : undefined);
        return;
      }
      if (strategy === RequestStrategy.SentinelMsg && msg.data.length === 0) {
        stop();
        return;
      }
      received++;
      iterator.push(msg);
      if (
        strategy === RequestStrategy.Count &&
        received >= (options.maxMessages ?? Number.POSITIVE_INFINITY)
      ) {
        stop();
      } else if (strategy === RequestStrategy.JitterTimer) {
        clearTimeout(stallTimer);
        stallTimer = setTimeout(() => stop(), options.jitter ?? DEFAULT_JITTER);
      }
    },
    fail: (error) => stop(error),
  });
  iterator.onFinished = () => stop();
  try {
    send(reply);
  } catch (error) {
    stop();
    throw error;
  }
  return iterator;
}
