import { decodeUtf8 } from './utf8.js';

/**
 * The grammar of a control line as pure functions of its bytes, nats-server's rules: which op its
 * verb names (case-insensitive, with the separators each op needs), which side of a connection
 * may send it, what a size field may hold, and how an error quotes the line. The parser
 * (parser.ts) holds the state; nothing here allocates except the error texts.
 */

export const SPACE = 0x20;
export const TAB = 0x09;

// Op ids. NEED_MORE: the bytes so far are a prefix of some op. UNKNOWN: they are not.
export const NEED_MORE = 0;
export const UNKNOWN = -1;
export const PUB = 1;
export const HPUB = 2;
export const SUB = 3;
export const UNSUB = 4;
export const CONNECT = 5;
export const INFO = 6;
export const PING = 7;
export const PONG = 8;
export const OK = 9;
export const MSG = 10;
export const HMSG = 11;
export const ERR = 12;

/** Each op's name, indexed by id; parsing compares against its lower-case bytes. */
export const NAMES = [
  '',
  'PUB',
  'HPUB',
  'SUB',
  'UNSUB',
  'CONNECT',
  'INFO',
  'PING',
  'PONG',
  '+OK',
  'MSG',
  'HMSG',
  '-ERR',
];
export const VERBS = NAMES.map((name) =>
  Array.from(name.toLowerCase(), (char) => char.charCodeAt(0)),
);

// Ops whose verb must be followed by a space or tab. CONNECT and INFO may run straight into
// their argument, and PING, PONG and +OK ignore whatever follows them on the line, all as
// nats-server does (`PINGX` is a PING).
const SEPARATED =
  (1 << PUB) | (1 << HPUB) | (1 << SUB) | (1 << UNSUB) | (1 << MSG) | (1 << HMSG) | (1 << ERR);
export const BARE = (1 << PING) | (1 << PONG) | (1 << OK);

/** The ops each side accepts, as bits by op id. */
export const SERVER_SIDE_OPS =
  (1 << CONNECT) | (1 << PUB) | (1 << HPUB) | (1 << SUB) | (1 << UNSUB) | (1 << INFO) | BARE;
export const CLIENT_SIDE_OPS = (1 << INFO) | (1 << MSG) | (1 << HMSG) | (1 << ERR) | BARE;

/** Longest verb plus its separator: after this many bytes every line prefix is resolved. */
export const VERB_WINDOW = 8;
/** Longest size nats-server accepts: 9 digits. */
const MAX_SIZE_DIGITS = 9;

export function isBlank(byte: number): boolean {
  return byte === SPACE || byte === TAB;
}

/** Identifies the op that starts `bytes[start, end)`, case-insensitively. */
export function classify(bytes: Uint8Array, start: number, end: number): number {
  if (start >= end) return NEED_MORE;
  const first = bytes[start];
  if (first === 0x2b) return matchVerb(bytes, start, end, OK);
  if (first === 0x2d) return matchVerb(bytes, start, end, ERR);
  // `| 0x20` lower-cases ASCII letters; only a letter's two cases can then equal a lower-case
  // letter, so comparing against letters below is exact.
  switch (first | 0x20) {
    case 0x70: {
      // p: PUB PING PONG
      if (start + 1 >= end) return NEED_MORE;
      const second = bytes[start + 1] | 0x20;
      if (second === 0x75) return matchVerb(bytes, start, end, PUB);
      if (second === 0x69) return matchVerb(bytes, start, end, PING);
      if (second === 0x6f) return matchVerb(bytes, start, end, PONG);
      return UNKNOWN;
    }
    case 0x6d:
      return matchVerb(bytes, start, end, MSG);
    case 0x68: {
      // h: HPUB HMSG
      if (start + 1 >= end) return NEED_MORE;
      const second = bytes[start + 1] | 0x20;
      if (second === 0x70) return matchVerb(bytes, start, end, HPUB);
      if (second === 0x6d) return matchVerb(bytes, start, end, HMSG);
      return UNKNOWN;
    }
    case 0x73:
      return matchVerb(bytes, start, end, SUB);
    case 0x75:
      return matchVerb(bytes, start, end, UNSUB);
    case 0x63:
      return matchVerb(bytes, start, end, CONNECT);
    case 0x69:
      return matchVerb(bytes, start, end, INFO);
    default:
      return UNKNOWN;
  }
}

function matchVerb(bytes: Uint8Array, start: number, end: number, op: number): number {
  const verb = VERBS[op];
  const length = verb.length;
  for (let k = 1; k < length; k++) {
    if (start + k >= end) return NEED_MORE;
    let byte = bytes[start + k];
    if (byte >= 0x41 && byte <= 0x5a) byte |= 0x20;
    if (byte !== verb[k]) return UNKNOWN;
  }
  if ((SEPARATED & (1 << op)) === 0) return op;
  if (start + length >= end) return NEED_MORE;
  return isBlank(bytes[start + length]) ? op : UNKNOWN;
}

/** A size field: 1 to 9 decimal digits, else -1 (nats-server's rule; leading zeros are fine). */
export function parseSize(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length === 0 || length > MAX_SIZE_DIGITS) return -1;
  let size = 0;
  for (let i = start; i < end; i++) {
    const digit = bytes[i] - 0x30;
    if (digit < 0 || digit > 9) return -1;
    size = size * 10 + digit;
  }
  return size;
}

/** The start of `bytes[start, end)` as a quoted string, for an error text. */
export function snippet(bytes: Uint8Array, start: number, end: number): string {
  const shown = decodeUtf8(bytes, start, Math.min(end, start + 32));
  return JSON.stringify(end - start > 32 ? `${shown}…` : shown);
}

/** The text of `-ERR '…'` without its quotes. */
export function unquote(text: string): string {
  return text.length >= 2 && text.startsWith("'") && text.endsWith("'") ? text.slice(1, -1) : text;
}
