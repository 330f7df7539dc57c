// Text <-> bytes for the protocol's hot paths. A TextDecoder call costs about the same for any
// short input, so the shortest ASCII strings (sids, sizes, short subjects) are cheaper to build
// from char codes; everything else goes through the platform codec.
//
// Subjects, reply subjects, queue names and sids are bytes on the wire: nats-server compares and
// forwards them as sent, valid UTF-8 or not. They become JS strings losslessly: valid UTF-8
// decodes as usual, and each byte that is not part of a valid sequence becomes the lone surrogate
// U+DC80 + (byte - 0x80) (Python's "surrogateescape"). Valid UTF-8 never decodes to a lone
// surrogate, so different byte strings always give different strings, and writing a string back
// turns each such surrogate into its byte again.

const decoder = new TextDecoder();
// ignoreBOM keeps a leading U+FEFF, which the default decoder drops (`\xef\xbb\xbfa` is not `a`).
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();
const fromCharCode = String.fromCharCode;

/** Ranges up to this length that are pure ASCII are decoded from char codes (measured on V8). */
const SHORT_ASCII = 12;

/** Lone surrogates standing for the bytes 0x80-0xff of invalid UTF-8. */
const ESCAPE_FIRST = 0xdc80;
const ESCAPE_LAST = 0xdcff;
const ESCAPE_OFFSET = 0xdc00;

/**
 * Decodes `bytes[start, end)` as UTF-8, replacing invalid sequences with U+FFFD: for free text
 * (JSON, error texts, payloads). Pass `ascii: true` when the caller already knows the range holds
 * no byte >= 0x80 (the parser learns that while splitting arguments).
 */
export function decodeUtf8(
  bytes: Uint8Array,
  start = 0,
  end = bytes.length,
  ascii = false,
): string {
  if (end - start <= SHORT_ASCII && (ascii || isAscii(bytes, start, end))) {
    return decodeShortAscii(bytes, start, end);
  }
  return decoder.decode(bytes.subarray(start, end));
}

/**
 * Decodes the subject (or reply, queue name, sid) `bytes[start, end)` losslessly: valid UTF-8 as
 * TextDecoder does (but a leading U+FEFF is kept), each byte of an invalid sequence as the lone
 * surrogate U+DC80 + (byte - 0x80). {@link encodeSubject} gives back exactly the bytes. `ascii`
 * as for decodeUtf8.
 */
export function decodeSubject(
  bytes: Uint8Array,
  start = 0,
  end = bytes.length,
  ascii = false,
): string {
  const short = end - start <= SHORT_ASCII;
  if (ascii || (short && isAscii(bytes, start, end))) {
    // ASCII is valid UTF-8, and the lenient decoder is a little faster than the strict one.
    return short ? decodeShortAscii(bytes, start, end) : decoder.decode(bytes.subarray(start, end));
  }
  try {
    return strictDecoder.decode(bytes.subarray(start, end));
  } catch {
    return decodeEscaping(bytes, start, end);
  }
}

function isAscii(bytes: Uint8Array, start: number, end: number): boolean {
  let bits = 0;
  for (let i = start; i < end; i++) bits |= bytes[i];
  return bits < 0x80;
}

function decodeShortAscii(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  let i = start;
  for (; i + 4 <= end; i += 4) {
    text += fromCharCode(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]);
  }
  for (; i < end; i++) text += fromCharCode(bytes[i]);
  return text;
}

/** The slow path of decodeSubject, for input holding invalid UTF-8. */
function decodeEscaping(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  let i = start;
  while (i < end) {
    const first = bytes[i];
    const length = first < 0x80 ? 1 : validSequenceLength(bytes, i, end);
    if (length === 0) {
      text += fromCharCode(ESCAPE_OFFSET + first);
      i++;
    } else if (length === 1) {
      text += fromCharCode(first);
      i++;
    } else {
      // The lead byte's payload bits, then six from each continuation byte.
      let point = first & (0x7f >> length);
      for (let k = 1; k < length; k++) point = (point << 6) | (bytes[i + k] & 0x3f);
      text += String.fromCodePoint(point);
      i += length;
    }
  }
  return text;
}

/**
 * The length of the valid multi-byte UTF-8 sequence starting at `bytes[i]` (a byte >= 0x80), or
 * 0 when there is none: the well-formed sequences of Unicode's table 3-7, so overlong forms,
 * surrogates and code points above U+10FFFF are invalid, as for TextDecoder.
 */
function validSequenceLength(bytes: Uint8Array, i: number, end: number): number {
  const first = bytes[i];
  let length: number;
  // The allowed range of the second byte; later bytes are always 0x80-0xbf.
  let low = 0x80;
  let high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) length = 2;
  else if (first >= 0xe0 && first <= 0xef) {
    length = 3;
    if (first === 0xe0) low = 0xa0;
    else if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    length = 4;
    if (first === 0xf0) low = 0x90;
    else if (first === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > end) return 0;
  const second = bytes[i + 1];
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) {
    const next = bytes[i + k];
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

/** Encodes a string as UTF-8 into a new array (lone surrogates become U+FFFD). */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Where encodeSubject writes before copying out what it wrote: cheaper than measuring first. */
const scratch = new Uint8Array(4096);

/**
 * Encodes a subject (or reply, queue name, sid) into a new array: the exact inverse of
 * {@link decodeSubject}. Other strings are written as UTF-8, a lone surrogate outside
 * U+DC80-U+DCFF as U+FFFD like TextEncoder.
 */
export function encodeSubject(text: string): Uint8Array {
  const room = 3 * text.length;
  const target = room <= scratch.length ? scratch : new Uint8Array(room);
  return target.slice(0, writeText(target, 0, text));
}

/** True when `code`, the char at `i`, is a high surrogate followed by a low one. */
function isPairAt(text: string, i: number, code: number): boolean {
  if (code < 0xd800 || code > 0xdbff) return false;
  const next = text.charCodeAt(i + 1);
  return next >= 0xdc00 && next <= 0xdfff;
}

/**
 * Writes `text` into `target` at `offset` and returns the offset after it: UTF-8, except that the
 * lone surrogates U+DC80-U+DCFF {@link decodeSubject} makes of invalid bytes are written as
 * those bytes. The caller guarantees room for `3 * text.length` bytes, the most it can take.
 */
export function writeText(target: Uint8Array, offset: number, text: string): number {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      target[offset++] = code;
    } else if (code < 0x800) {
      target[offset++] = 0xc0 | (code >> 6);
      target[offset++] = 0x80 | (code & 0x3f);
    } else if (isPairAt(text, i, code)) {
      const point = 0x10000 + ((code - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      target[offset++] = 0xf0 | (point >> 18);
      target[offset++] = 0x80 | ((point >> 12) & 0x3f);
      target[offset++] = 0x80 | ((point >> 6) & 0x3f);
      target[offset++] = 0x80 | (point & 0x3f);
    } else if (code >= ESCAPE_FIRST && code <= ESCAPE_LAST) {
      target[offset++] = code - ESCAPE_OFFSET;
    } else {
      // Any other lone surrogate is written as U+FFFD, as TextEncoder does.
      const point = code >= 0xd800 && code <= 0xdfff ? 0xfffd : code;
      target[offset++] = 0xe0 | (point >> 12);
      target[offset++] = 0x80 | ((point >> 6) & 0x3f);
      target[offset++] = 0x80 | (point & 0x3f);
    }
  }
  return offset;
}
