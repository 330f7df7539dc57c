import type { ConnectInfo } from './connect.js';
import type { ServerInfo } from './info.js';
import { encodeUtf8, writeText } from './utf8.js';

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
/** Room for an op name, separators, two sizes and CRLFs, beyond the variable parts. */
const FRAME_OVERHEAD = 64;
/**
 * Arrays up to this length are appended with a byte loop: TypedArray.prototype.set costs about the
 * same ~20 ns for any short array on V8, a loop about 1 ns a byte (measured on Node 20).
 */
const SHORT_COPY = 12;

const PUB = encodeUtf8('PUB ');
const HPUB = encodeUtf8('HPUB ');
const MSG = encodeUtf8('MSG ');
const HMSG = encodeUtf8('HMSG ');
const SUB = encodeUtf8('SUB ');
const UNSUB = encodeUtf8('UNSUB ');
const CONNECT = encodeUtf8('CONNECT ');
const INFO = encodeUtf8('INFO ');
const PING = encodeUtf8('PING\r\n');
const PONG = encodeUtf8('PONG\r\n');
const OK = encodeUtf8('+OK\r\n');
const ERR = encodeUtf8("-ERR '");
const ERR_END = encodeUtf8("'\r\n");

/**
 * Encodes protocol frames into one growable buffer, so that a single socket write can carry
 * many frames. Strings are written as UTF-8, except that a subject, reply, queue or sid decoded
 * from invalid UTF-8 is written back as exactly its bytes (see `decodeSubject`). Arguments are not
 * validated: subjects, queues, sids and replies must already be whitespace-free tokens.
 */
export class FrameWriter {
  private buffer: Uint8Array;
  private used = 0;

  constructor(initialCapacity = 16 * 1024) {
    this.buffer = new Uint8Array(Math.max(initialCapacity, FRAME_OVERHEAD));
  }

  /** Bytes written and not yet taken. */
  get length(): number {
    return this.used;
  }

  /** Returns the pending bytes as a new array (safe to hand to a socket) and empties the writer. */
  take(): Uint8Array {
    const out = this.buffer.slice(0, this.used);
    this.used = 0;
    return out;
  }

  /**
   * Hands the pending bytes to `write` without copying them and empties the writer. `write`
   * returns whether it is finished with the bytes: if it is not (they are still queued somewhere),
   * the writer moves on to a fresh buffer and never touches the handed-out bytes again.
   */
  writeTo(write: (bytes: Uint8Array) => boolean): void {
    const bytes = this.buffer.subarray(0, this.used);
    this.used = 0;
    if (!write(bytes)) this.buffer = new Uint8Array(this.buffer.length);
  }

  /** `CONNECT {json}` */
  connect(info: ConnectInfo): void {
    this.jsonLine(CONNECT, JSON.stringify(info), false);
  }

  /** `INFO {json} ` followed by CRLF, with the space nats-server writes; a string is sent as is. */
  info(info: ServerInfo | string): void {
    this.jsonLine(INFO, typeof info === 'string' ? info : JSON.stringify(info), true);
  }

  /** PUB, or HPUB when a non-empty header block is given. An empty reply means none. */
  pub(subject: string, reply: string | undefined, payload: Uint8Array, headers?: Uint8Array): void {
    this.message(subject, undefined, reply, payload, headers);
  }

  /** MSG, or HMSG when a non-empty header block is given. An empty reply means none. */
  msg(
    subject: string,
    sid: string | number,
    reply: string | undefined,
    payload: Uint8Array,
    headers?: Uint8Array,
  ): void {
    this.message(subject, sid, reply, payload, headers);
  }

  /**
   * The rest of a MSG or HMSG line whose start (`MSG <subject> <sid>`) was appended as bytes:
   * ` [reply] [<header size>] <total size>\r\n`, the total counting headers and payload. Written
   * in place, so a reply that differs for every message costs no array of its own.
   */
  msgLineEnd(reply: string | undefined, headerSize: number | undefined, payloadSize: number): void {
    this.reserve(FRAME_OVERHEAD + 3 * (reply?.length ?? 0));
    this.lineEnd(reply, headerSize, payloadSize);
  }

  /** ` [reply] [<header size>] <total size>\r\n`, in room already reserved. */
  private lineEnd(
    reply: string | undefined,
    headerSize: number | undefined,
    payloadSize: number,
  ): void {
    this.byte(SPACE);
    if (reply !== undefined) {
      this.text(reply);
      this.byte(SPACE);
    }
    if (headerSize !== undefined) {
      this.number(headerSize);
      this.byte(SPACE);
    }
    this.number((headerSize ?? 0) + payloadSize);
    this.crlf();
  }

  /** `SUB subject [queue] sid`; an empty queue means none. */
  sub(subject: string, sid: string | number, queue?: string): void {
    this.reserve(FRAME_OVERHEAD + 3 * (subject.length + (queue?.length ?? 0) + sidLength(sid)));
    this.copy(SUB);
    this.text(subject);
    this.byte(SPACE);
    if (queue) {
      this.text(queue);
      this.byte(SPACE);
    }
    this.sid(sid);
    this.crlf();
  }

  /** `UNSUB sid [max]` */
  unsub(sid: string | number, max?: number): void {
    this.reserve(FRAME_OVERHEAD + 3 * sidLength(sid));
    this.copy(UNSUB);
    this.sid(sid);
    if (max !== undefined) {
      this.byte(SPACE);
      this.number(max);
    }
    this.crlf();
  }

  ping(): void {
    this.bytes(PING);
  }

  pong(): void {
    this.bytes(PONG);
  }

  ok(): void {
    this.bytes(OK);
  }

  /** `-ERR '<text>'` */
  err(text: string): void {
    this.reserve(FRAME_OVERHEAD + 3 * text.length);
    this.copy(ERR);
    this.text(text);
    this.copy(ERR_END);
  }

  /** Appends bytes that are already encoded (a pre-encoded frame or frame part). */
  bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.copy(data);
  }

  private message(
    subject: string,
    sid: string | number | undefined,
    reply: string | undefined,
    payload: Uint8Array,
    headers: Uint8Array | undefined,
  ): void {
    const headerSize = headers === undefined ? 0 : headers.length;
    const totalSize = headerSize + payload.length;
    const tokens = subject.length + (reply?.length ?? 0) + (sid === undefined ? 0 : sidLength(sid));
    this.reserve(FRAME_OVERHEAD + 3 * tokens + totalSize);
    if (sid === undefined) this.copy(headerSize > 0 ? HPUB : PUB);
    else this.copy(headerSize > 0 ? HMSG : MSG);
    this.text(subject);
    if (sid !== undefined) {
      this.byte(SPACE);
      this.sid(sid);
    }
    // An empty reply means none, and an empty header block too.
    this.lineEnd(reply || undefined, headerSize > 0 ? headerSize : undefined, payload.length);
    if (headerSize > 0) this.copy(headers!);
    this.copy(payload);
    this.crlf();
  }

  private jsonLine(op: Uint8Array, json: string, trailingSpace: boolean): void {
    this.reserve(FRAME_OVERHEAD + 3 * json.length);
    this.copy(op);
    this.text(json);
    if (trailingSpace) this.byte(SPACE);
    this.crlf();
  }

  /** Makes room for `extra` more bytes. */
  private reserve(extra: number): void {
    const needed = this.used + extra;
    if (needed <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(needed, this.buffer.length * 2));
    grown.set(this.buffer.subarray(0, this.used));
    this.buffer = grown;
  }

  /** Appends bytes there is room for. */
  private copy(data: Uint8Array): void {
    const length = data.length;
    if (length > SHORT_COPY) {
      this.buffer.set(data, this.used);
      this.used += length;
      return;
    }
    const buffer = this.buffer;
    let used = this.used;
    for (let i = 0; i < length; i++) buffer[used++] = data[i];
    this.used = used;
  }

  private byte(value: number): void {
    this.buffer[this.used++] = value;
  }

  private crlf(): void {
    this.buffer[this.used++] = CR;
    this.buffer[this.used++] = LF;
  }

  private text(value: string): void {
    this.used = writeText(this.buffer, this.used, value);
  }

  private sid(sid: string | number): void {
    if (typeof sid === 'number') this.number(sid);
    else this.text(sid);
  }

  /** Writes a non-negative integer in decimal. */
  private number(value: number): void {
    if (value < 10) {
      this.buffer[this.used++] = 0x30 + value;
      return;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = this.used + digits;
    this.used = at;
    let rest = value;
    while (rest > 0) {
      this.buffer[--at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
  }
}

/** Upper bound on the characters a sid takes (a number has at most 16 digits). */
function sidLength(sid: string | number): number {
  return typeof sid === 'number' ? 16 : sid.length;
}
