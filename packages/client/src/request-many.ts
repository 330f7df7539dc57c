import { NoRespondersError } from './errors.js';
import type { MsgImpl } from './msg.js';
import { QueuedIterator } from './queued-iterator.js';
import type { PendingReply, RequestMux } from './request-mux.js';
import { type Msg, type RequestManyOptions, RequestStrategy } from './types.js';

const DEFAULT_JITTER = 300;

/** Receives the replies of one requestMany, wherever they arrive. */
export interface ReplyHandler extends PendingReply {
  /** Ends the request: quietly (e.g. its inbox was drained) or with an error. */
  end(error?: Error): void;
}

/** Where the replies of one requestMany arrive. */
export interface ReplyInbox {
  /** The reply subject to publish the request with. */
  readonly reply: string;
  /** Stops routing replies to the handler. */
  close(): void;
}

/** Opens the inbox of one request: the shared one, or (noMux) a subscription of its own. */
export type OpenReplyInbox = (handler: ReplyHandler) => ReplyInbox;

/** The connection's shared inbox, where the last token of the reply subject names the request. */
export function sharedInbox(mux: RequestMux): OpenReplyInbox {
  return (handler) => {
    const { token, reply } = mux.add(handler);
    return { reply, close: () => mux.remove(token) };
  };
}

export function requestMany(
  openInbox: OpenReplyInbox,
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
  let finished = false;
  const stop = (error?: Error) => {
    if (finished) return;
    finished = true;
    clearTimeout(overall);
    clearTimeout(stallTimer);
    inbox.close();
    iterator.stop(error);
  };
  const overall = setTimeout(() => stop(), maxWait);
  const inbox = openInbox({
    subject,
    deliver: (msg: MsgImpl) => {
      if (msg.isNoResponders) {
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
    end: (error) => stop(error),
  });
  iterator.onFinished = () => stop();
  try {
    send(inbox.reply);
  } catch (error) {
    stop();
    throw error;
  }
  return iterator;
}
