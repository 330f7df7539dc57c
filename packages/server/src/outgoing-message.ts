import type { FrameWriter } from '@slipstream/protocol';
import { encodeSubject } from '@slipstream/protocol';

const CRLF = Buffer.from('\r\n');
/** Distinct subjects whose encoded heads are kept; past this the cache starts over. */
const MAX_CACHED_SUBJECTS = 8192;
/** Payload sizes whose encoded ` <size>\r\n` is kept (most messages are small). */
const MAX_CACHED_SIZE = 64 * 1024;
/**
 * For a message with several receivers and a payload up to this size, the line end, payload and
 * CRLF are joined into one array once, so each receiver costs two appends; otherwise (one
 * receiver, or a big payload) they are appended as they are, uncopied.
 */
const MAX_JOINED_PAYLOAD = 4 * 1024;

/**
 * Encoded pieces of MSG/HMSG lines shared by all publishes: `MSG <subject> ` per subject and
 * ` <size>\r\n` per payload size, so routing a message to a hot subject allocates little.
 * Subjects and replies are encoded with `encodeSubject`, so they go out as exactly the bytes the
 * publisher sent, valid UTF-8 or not.
 */
export class FramePartsCache {
  readonly #msgHeads = new Map<string, Uint8Array>();
  readonly #hmsgHeads = new Map<string, Uint8Array>();
  readonly #sizeTails: Uint8Array[] = [];

  msgHead(subject: string): Uint8Array {
    return this.#head(this.#msgHeads, 'MSG', subject);
  }

  hmsgHead(subject: string): Uint8Array {
    return this.#head(this.#hmsgHeads, 'HMSG', subject);
  }

  /** ` <size>\r\n`: the end of a MSG line without a reply. */
  sizeTail(size: number): Uint8Array {
    if (size >= MAX_CACHED_SIZE) return Buffer.from(` ${size}\r\n`);
    let tail = this.#sizeTails[size];
    if (tail === undefined) this.#sizeTails[size] = tail = Buffer.from(` ${size}\r\n`);
    return tail;
  }

  #head(cache: Map<string, Uint8Array>, op: string, subject: string): Uint8Array {
    let head = cache.get(subject);
    if (head === undefined) {
      if (cache.size >= MAX_CACHED_SUBJECTS) cache.clear();
      head = encodeSubject(`${op} ${subject} `);
      cache.set(subject, head);
    }
    return head;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * What a message needs of the subscription it is written for (a Subscription): its sid, and for
 * a literal subject its own cached line starts.
 */
export interface MessageTarget {
  readonly literal: boolean;
  readonly subject: string;
  readonly sid: string;
  sidBytes(): Uint8Array;
  msgStart(): Uint8Array;
  hmsgStart(): Uint8Array;
}

/**
 * One publish as every receiver gets it: the line start (`MSG <subject> <sid>`), then the rest
 * (` [reply] <sizes>\r\n[headers]<payload>\r\n`). The rest is encoded once per form (MSG, or HMSG
 * for header-aware clients) and shared by every subscriber; a subscription on a literal subject
 * keeps its own line start, so only that differs. Every receiver gets a copy at once, so one
 * instance serves publish after publish (`reset`, then `release`), sparing an allocation each.
 */
export class OutgoingMessage {
  subject = '';
  reply: string | undefined;
  headers: Uint8Array | undefined;
  payload: Uint8Array = EMPTY;
  /** More than one subscription may receive it. */
  shared = false;
  /**
   * The subject is a reply subject, published this once: written out whole, not through the
   * cache of line starts (where a stream of PubAcks would only push out the subjects that recur).
   */
  once = false;
  #msgLineEnd: Uint8Array | undefined;
  #hmsgLineEnd: Uint8Array | undefined;
  #msgRest: Uint8Array | undefined;
  #hmsgRest: Uint8Array | undefined;

  constructor(readonly parts: FramePartsCache) {}

  /** Makes this the message for the next publish. */
  reset(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    shared: boolean,
    once = false,
  ): this {
    this.subject = subject;
    this.reply = reply;
    this.headers = headers;
    this.payload = payload;
    this.shared = shared;
    this.once = once;
    this.#msgLineEnd = undefined;
    this.#hmsgLineEnd = undefined;
    this.#msgRest = undefined;
    this.#hmsgRest = undefined;
    return this;
  }

  /** Drops the payload: it may be a view of a whole socket chunk, which must not outlive the publish. */
  release(): void {
    this.reset('', undefined, undefined, EMPTY, false);
  }

  /**
   * Appends this message as `sub` receives it to `writer` (MSG, or HMSG when the receiving
   * connection negotiated `headers`); returns the bytes delivered.
   */
  writeTo(sub: MessageTarget, writer: FrameWriter, headersOn: boolean): number {
    const headers = this.headers;
    const payload = this.payload;
    const withHeaders = headers !== undefined && headersOn;
    if (this.once && !(withHeaders && headers.length === 0)) {
      writer.msg(this.subject, sub.sid, this.reply, payload, withHeaders ? headers : undefined);
      return payload.length + (withHeaders ? headers.length : 0);
    }
    // A literal subscription's line start holds its own subject, which a JetStream delivery
    // (shown under the stored message's subject) does not use.
    if (sub.literal && sub.subject === this.subject) {
      writer.bytes(withHeaders ? sub.hmsgStart() : sub.msgStart());
    } else {
      writer.bytes(
        withHeaders ? this.parts.hmsgHead(this.subject) : this.parts.msgHead(this.subject),
      );
      writer.bytes(sub.sidBytes());
    }
    if (!this.shared || payload.length > MAX_JOINED_PAYLOAD) {
      // One receiver: the line end is written in place (a JetStream delivery's reply differs
      // for every message); several share it encoded once.
      if (this.shared) writer.bytes(withHeaders ? this.#hmsgLine(headers) : this.#msgLine());
      else writer.msgLineEnd(this.reply, withHeaders ? headers.length : undefined, payload.length);
      if (withHeaders) writer.bytes(headers);
      writer.bytes(payload);
      writer.bytes(CRLF);
    } else if (withHeaders) {
      writer.bytes((this.#hmsgRest ??= this.#join(headers)));
    } else {
      // A client that did not negotiate headers gets the payload alone (nats-server strips them).
      writer.bytes((this.#msgRest ??= this.#join(undefined)));
    }
    return payload.length + (withHeaders ? headers.length : 0);
  }

  /** The MSG line end, encoded once per publish however many receivers take it uncopied. */
  #msgLine(): Uint8Array {
    return (this.#msgLineEnd ??= this.#lineEnd(undefined));
  }

  #hmsgLine(headers: Uint8Array): Uint8Array {
    return (this.#hmsgLineEnd ??= this.#lineEnd(headers));
  }

  /** ` [reply] <sizes>\r\n` */
  #lineEnd(headers: Uint8Array | undefined): Uint8Array {
    const size = this.payload.length;
    if (headers === undefined && this.reply === undefined) return this.parts.sizeTail(size);
    const sizes = headers === undefined ? `${size}` : `${headers.length} ${headers.length + size}`;
    return encodeSubject(
      this.reply === undefined ? ` ${sizes}\r\n` : ` ${this.reply} ${sizes}\r\n`,
    );
  }

  /** The line end, headers, payload and CRLF in one array. */
  #join(headers: Uint8Array | undefined): Uint8Array {
    const lineEnd = this.#lineEnd(headers);
    const headerLength = headers?.length ?? 0;
    const joined = new Uint8Array(lineEnd.length + headerLength + this.payload.length + 2);
    joined.set(lineEnd);
    if (headers !== undefined) joined.set(headers, lineEnd.length);
    joined.set(this.payload, lineEnd.length + headerLength);
    joined[joined.length - 2] = 0x0d;
    joined[joined.length - 1] = 0x0a;
    return joined;
  }
}
