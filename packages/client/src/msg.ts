import { decodeUtf8, type MsgHdrs, MsgHdrsImpl } from '@slipstream/protocol';
import type { Msg, Payload, PublishOptions } from './types.js';

/** What a message needs from its connection to answer itself. */
export interface Responder {
  publish(subject: string, payload?: Payload, options?: PublishOptions): void;
}

/** A received message. Headers stay raw bytes until someone reads them. */
export class MsgImpl implements Msg {
  readonly subject: string;
  readonly sid: number;
  readonly reply: string | undefined;
  readonly data: Uint8Array;
  #rawHeaders: Uint8Array | undefined;
  #headers: MsgHdrs | undefined;
  #responder: Responder;

  constructor(
    responder: Responder,
    subject: string,
    sid: number,
    reply: string | undefined,
    data: Uint8Array,
    rawHeaders: Uint8Array | undefined,
  ) {
    this.#responder = responder;
    this.subject = subject;
    this.sid = sid;
    this.reply = reply;
    this.data = data;
    this.#rawHeaders = rawHeaders;
  }

  get headers(): MsgHdrs | undefined {
    if (this.#headers === undefined && this.#rawHeaders !== undefined) {
      this.#headers = MsgHdrsImpl.decode(this.#rawHeaders);
      this.#rawHeaders = undefined;
    }
    return this.#headers;
  }

  /** True for the server's header-only 503 status: nobody listens on the request subject. */
  get isNoResponders(): boolean {
    return this.data.length === 0 && this.headers?.code === 503;
  }

  respond(payload?: Payload, options?: PublishOptions): boolean {
    if (!this.reply) return false;
    this.#responder.publish(this.reply, payload, options);
    return true;
  }

  json<T = unknown>(reviver?: (key: string, value: unknown) => unknown): T {
    return JSON.parse(this.string(), reviver as Parameters<typeof JSON.parse>[1]);
  }

  string(): string {
    return decodeUtf8(this.data);
  }
}
