import type { Msg } from '@slipstream/client';
import { decodeUtf8, isValidPublishSubject, type MsgHdrs } from '@slipstream/protocol';
import type { ApiClient } from './api-client.js';
import { JetStreamError, JetStreamStatusError } from './errors.js';
import { checkStreamName } from './names.js';
import type { StoredMsg } from './stored-msg.js';
import type { MsgRequest } from './stream-api.js';

/** The headers a direct get answers with, beside the message's own; the names of nats.js. */
export const DirectMsgHeaders = {
  Stream: 'Nats-Stream',
  Sequence: 'Nats-Sequence',
  TimeStamp: 'Nats-Time-Stamp',
  Subject: 'Nats-Subject',
} as const;

/**
 * Reads stored messages from any replica without going through the stream leader, as
 * nats.js's `jsm.direct`. Only streams with `allow_direct` answer: for any other, nats-server
 * stays silent (the API subjects always have a listener, so there is no "no responders") and
 * the call ends in a TimeoutError.
 */
export interface DirectStreamAPI {
  /** The message, or null when there is none. */
  getMessage(stream: string, query: MsgRequest): Promise<StoredMsg | null>;
}

/** A direct get reply: the stored message with its place in the stream in headers. */
class DirectMsgImpl implements StoredMsg {
  readonly data: Uint8Array;
  readonly header: MsgHdrs;

  constructor(msg: Msg) {
    if (!msg.headers) throw new JetStreamError('direct get reply without headers');
    this.data = msg.data;
    this.header = msg.headers;
  }

  get subject(): string {
    return this.header.last(DirectMsgHeaders.Subject);
  }
  get seq(): number {
    return Number(this.header.last(DirectMsgHeaders.Sequence));
  }
  get timestamp(): string {
    return this.header.last(DirectMsgHeaders.TimeStamp);
  }
  get time(): Date {
    return new Date(Date.parse(this.timestamp));
  }
  json<T = unknown>(reviver?: (key: string, value: unknown) => unknown): T {
    return JSON.parse(this.string(), reviver as Parameters<typeof JSON.parse>[1]);
  }
  string(): string {
    return decodeUtf8(this.data);
  }
}

export class DirectStreamAPIImpl implements DirectStreamAPI {
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  /**
   * The last message of a literal subject is asked for in the subject
   * (`DIRECT.GET.<stream>.<subject>`), where permissions can see it, as the KV clients do;
   * everything else in a JSON body.
   */
  async getMessage(stream: string, query: MsgRequest): Promise<StoredMsg | null> {
    checkStreamName(stream);
    const last = 'last_by_subj' in query ? query.last_by_subj : undefined;
    const reply =
      last && isValidPublishSubject(last)
        ? await this.#api.request('directGetLastBySubject', { stream, subject: last })
        : await this.#api.request('directGet', { stream }, query);
    const code = reply.headers?.code ?? 0;
    if (code === 404) return null;
    if (code !== 0) throw new JetStreamStatusError(reply.headers!.description, code);
    return new DirectMsgImpl(reply);
  }
}
