/**
 * WebSocket frames (RFC 6455 §5) read as their bytes arrive: a data frame's payload is handed on,
 * unmasked, in whatever pieces the socket delivers it, so a frame that claims 90 MiB and never
 * ends costs nothing but the bytes of the piece at hand (nats-server's wsRead does the same). Only
 * a control frame, at most 125 bytes, is gathered whole. Pure: no I/O, no timers.
 */

/** The frame types of RFC 6455 §5.2 (any other opcode is refused). */
export const Opcode = {
  Continuation: 0,
  Text: 1,
  Binary: 2,
  Close: 8,
  Ping: 9,
  Pong: 10,
} as const;
export type Opcode = (typeof Opcode)[keyof typeof Opcode];

const FIN = 0x80;
const RSV1 = 0x40;
/** RSV2 and RSV3: no extension we negotiate gives them a meaning. */
const RSV23 = 0x30;
const MASKED = 0x80;
export const MAX_CONTROL_PAYLOAD = 125;
/** 2 bytes, up to 8 of extended length, 4 of mask key. */
const MAX_HEADER = 14;

/** What the reader finds, in order. */
export interface FrameSink {
  /** A piece of an uncompressed message's payload, unmasked; a view of the chunk being read. */
  data(bytes: Uint8Array): void;
  /**
   * A piece of a compressed message's payload (permessage-deflate), unmasked; `last` marks the end
   * of the message (the inflater appends the 00 00 ff ff tail then, RFC 7692 §7.2.2).
   */
  compressed(bytes: Uint8Array, last: boolean): void;
  /** A whole control frame (close, ping or pong) with its payload, unmasked. */
  control(opcode: Opcode, payload: Uint8Array): void;
  /** The client broke the framing rules; nothing more is read. */
  error(message: string): void;
}

export interface FrameReaderOptions {
  /** permessage-deflate was negotiated: RSV1 marks a compressed message. */
  compression: boolean;
  /** Frames must be masked (a client's always are, unless it asked for Nats-No-Masking). */
  masked: boolean;
}

export class FrameReader {
  readonly #sink: FrameSink;
  readonly #options: FrameReaderOptions;
  /** A frame header being gathered (it may arrive split across chunks). */
  readonly #header = new Uint8Array(MAX_HEADER);
  #headerLength = 0;
  /** Payload bytes of the current frame still to come; -1 while reading a header. */
  #remaining = -1;
  #opcode: Opcode = Opcode.Continuation;
  #final = false;
  readonly #maskKey = new Uint8Array(4);
  #masked = false;
  /** Index in the mask key of the next payload byte. */
  #maskOffset = 0;
  /** A message whose final frame has not come yet (continuation frames may follow). */
  #inMessage = false;
  #messageCompressed = false;
  /** The payload of a control frame, gathered whole. */
  #control: Uint8Array | undefined;
  #controlLength = 0;
  /** After an error or a close frame, further bytes are ignored. */
  #stopped = false;

  constructor(sink: FrameSink, options: FrameReaderOptions) {
    this.#sink = sink;
    this.#options = options;
  }

  /** Stops reading: the peer closed, or the connection is ending. */
  stop(): void {
    this.#stopped = true;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Reads a chunk from the socket; its bytes may be unmasked in place. */
  read(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length && !this.#stopped) {
      if (this.#remaining < 0) {
        at = this.#readHeader(chunk, at);
        continue;
      }
      const take = Math.min(this.#remaining, chunk.length - at);
      this.#payload(chunk.subarray(at, at + take));
      at += take;
    }
  }

  /** Gathers header bytes from `chunk` at `at`; returns where reading stopped. */
  #readHeader(chunk: Uint8Array, at: number): number {
    const header = this.#header;
    while (at < chunk.length) {
      header[this.#headerLength++] = chunk[at++];
      if (this.#headerLength === 2 && !this.#checkStart()) return at;
      if (this.#headerLength >= 2 && this.#headerLength === this.#headerSize()) {
        this.#startPayload();
        return at;
      }
    }
    return at;
  }

  /** The full header size, known from its second byte on. */
  #headerSize(): number {
    const lengthCode = this.#header[1] & 0x7f;
    const extended = lengthCode === 126 ? 2 : lengthCode === 127 ? 8 : 0;
    return 2 + extended + (this.#header[1] & MASKED ? 4 : 0);
  }

  /** The rules a frame breaks in its first two bytes, in nats-server's order and words. */
  #checkStart(): boolean {
    const [first, second] = this.#header as unknown as [number, number];
    const opcode = first & 0x0f;
    const final = (first & FIN) !== 0;
    const rsv1 = (first & RSV1) !== 0;
    if (this.#options.masked && !(second & MASKED)) return this.#fail('mask bit missing');
    switch (opcode) {
      case Opcode.Close:
      case Opcode.Ping:
      case Opcode.Pong:
        if ((second & 0x7f) > MAX_CONTROL_PAYLOAD) {
          return this.#fail(
            `control frame length bigger than maximum allowed of ${MAX_CONTROL_PAYLOAD} bytes`,
          );
        }
        if (!final) return this.#fail('control frame does not have final bit set');
        if (rsv1) return this.#fail('control frame must not be compressed');
        break;
      case Opcode.Text:
      case Opcode.Binary:
        if (this.#inMessage) {
          return this.#fail(
            'new message started before final frame for previous message was received',
          );
        }
        if (rsv1 && !this.#options.compression) {
          return this.#fail('compressed frame without permessage-deflate');
        }
        break;
      case Opcode.Continuation:
        // Only a message's first frame carries the compression bit.
        if (!this.#inMessage || rsv1) return this.#fail('invalid continuation frame');
        break;
      default:
        return this.#fail(`unknown opcode ${opcode}`);
    }
    // Stricter than nats-server, as RFC 6455 §5.2 asks: no extension gives these bits a meaning.
    if (first & RSV23) return this.#fail('reserved bits set');
    this.#opcode = opcode as Opcode;
    this.#final = final;
    return true;
  }

  #startPayload(): void {
    const header = this.#header;
    const lengthCode = header[1] & 0x7f;
    let length = lengthCode;
    let keyAt = 2;
    if (lengthCode === 126) {
      length = (header[2] << 8) | header[3];
      keyAt = 4;
    } else if (lengthCode === 127) {
      const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
      const big = view.getBigUint64(2);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
        this.#fail('frame length too large');
        return;
      }
      length = Number(big);
      keyAt = 10;
    }
    this.#masked = (header[1] & MASKED) !== 0;
    if (this.#masked) this.#maskKey.set(header.subarray(keyAt, keyAt + 4));
    this.#maskOffset = 0;
    this.#headerLength = 0;
    this.#remaining = length;
    const opcode = this.#opcode;
    if (opcode >= Opcode.Close) {
      this.#control = new Uint8Array(length);
      this.#controlLength = 0;
    } else if (opcode !== Opcode.Continuation) {
      this.#inMessage = true;
      this.#messageCompressed = (header[0] & RSV1) !== 0;
    }
    // A frame with no payload ends here; its end may still end a message or be a control frame.
    if (length === 0) this.#payload(new Uint8Array(0));
  }

  #payload(bytes: Uint8Array): void {
    if (this.#masked) this.#maskOffset = unmask(bytes, this.#maskKey, this.#maskOffset);
    this.#remaining -= bytes.length;
    const frameEnds = this.#remaining === 0;
    if (frameEnds) this.#remaining = -1;
    if (this.#control !== undefined) {
      this.#control.set(bytes, this.#controlLength);
      this.#controlLength += bytes.length;
      if (!frameEnds) return;
      const payload = this.#control;
      this.#control = undefined;
      this.#sink.control(this.#opcode, payload);
      return;
    }
    const messageEnds = frameEnds && this.#final;
    if (messageEnds) this.#inMessage = false;
    if (this.#messageCompressed) this.#sink.compressed(bytes, messageEnds);
    else if (bytes.length > 0) this.#sink.data(bytes);
  }

  #fail(message: string): false {
    this.#stopped = true;
    this.#sink.error(message);
    return false;
  }
}

/**
 * XORs `bytes` in place with the mask key, starting at key index `offset`; returns the key index
 * of the byte after them (a frame's payload may arrive in pieces).
 */
export function unmask(bytes: Uint8Array, key: Uint8Array, offset: number): number {
  const length = bytes.length;
  let i = 0;
  // Four bytes at a time where the buffer allows a 32-bit view (the key rotated to match).
  if (length >= 32 && bytes.byteOffset % 4 === 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, length >>> 2);
    const rotated = new Uint8Array(4);
    for (let k = 0; k < 4; k++) rotated[k] = key[(offset + k) & 3];
    const word = new Uint32Array(rotated.buffer)[0];
    for (let w = 0; w < words.length; w++) words[w] ^= word;
    i = words.length << 2;
  }
  for (; i < length; i++) bytes[i] ^= key[(offset + i) & 3];
  return (offset + length) & 3;
}
