import type { StoredMessage } from '@slipstream/jsapi';
import { decodeUtf8, headers, type MsgHdrs, MsgHdrsImpl } from '@slipstream/protocol';

/** A message read from a stream by STREAM.MSG.GET; the shape of nats.js's StoredMsg. */
export interface StoredMsg {
  readonly subject: string;
  readonly seq: number;
  /** Headers of the message (empty when it had none). */
  readonly header: MsgHdrs;
  readonly data: Uint8Array;
  /** When the message was stored, as the server wrote it (RFC 3339 with nanoseconds). */
  readonly timestamp: string;
  /** The same instant as a Date (milliseconds). */
  readonly time: Date;
  json<T = unknown>(reviver?: (key: string, value: unknown) => unknown): T;
  string(): string;
}

const EMPTY = new Uint8Array(0);

/** Standard base64 (the server encodes `data` and `hdrs` with Go's StdEncoding). */
function base64Bytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export class StoredMsgImpl implements StoredMsg {
  readonly subject: string;
  readonly seq: number;
  readonly data: Uint8Array;
  readonly timestamp: string;
  readonly #rawHeaders: string | undefined;
  #header: MsgHdrs | undefined;

  constructor(message: StoredMessage) {
    this.subject = message.subject;
    this.seq = message.seq;
    this.data = message.data ? base64Bytes(message.data) : EMPTY;
    this.timestamp = message.time;
    this.#rawHeaders = message.hdrs;
  }

  get header(): MsgHdrs {
    this.#header ??= this.#rawHeaders
      ? MsgHdrsImpl.decode(base64Bytes(this.#rawHeaders))
      : headers();
    return this.#header;
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
