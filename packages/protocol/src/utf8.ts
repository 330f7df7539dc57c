// Text <-> bytes for the protocol's hot paths. A TextDecoder call costs about the same for any
// short input, so the shortest ASCII strings (sids, sizes, short subjects) are cheaper to build
// from char codes; everything else goes through the platform codec.

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const fromCharCode = String.fromCharCode;

/** Ranges up to this length that are pure ASCII are decoded from char codes (measured on V8). */
const SHORT_ASCII = 12;

/**
 * Decodes `bytes[start, end)` as UTF-8. Pass `ascii: true` when the caller already knows the
 * range holds no byte >= 0x80 (the parser learns that while splitting arguments).
 */
export function decodeUtf8(
  bytes: Uint8Array,
  start = 0,
  end = bytes.length,
  ascii = false,
): string {
  const length = end - start;
  if (length > SHORT_ASCII || (!ascii && !isAscii(bytes, start, end))) {
    return decoder.decode(bytes.subarray(start, end));
  }
  let text = '';
  let i = start;
  for (; i + 4 <= end; i += 4) {
    text += fromCharCode(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]);
  }
  for (; i < end; i++) text += fromCharCode(bytes[i]);
  return text;
}

function isAscii(bytes: Uint8Array, start: number, end: number): boolean {
  let bits = 0;
  for (let i = start; i < end; i++) bits |= bytes[i];
  return bits < 0x80;
}

/** Encodes a string as UTF-8 into a new array. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Writes `text` as UTF-8 into `target` at `offset` and returns the offset after it. The caller
 * guarantees room for `3 * text.length` bytes, the most any UTF-16 string can take as UTF-8.
 */
export function writeUtf8(target: Uint8Array, offset: number, text: string): number {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) {
      const { written } = encoder.encodeInto(
        i === 0 ? text : text.slice(i),
        target.subarray(offset),
      );
      return offset + written;
    }
    target[offset++] = code;
  }
  return offset;
}
