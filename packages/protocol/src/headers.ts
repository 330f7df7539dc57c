/**
 * NATS message headers: the block carried by HPUB/HMSG.
 *
 *   NATS/1.0[ <code>[ <description>]]\r\n
 *   Key: Value\r\n            (zero or more; a key may repeat)
 *   \r\n
 *
 * The API follows nats.js v3 (`headers()`, `MsgHdrs`, `Match`). Keys keep the case they
 * were sent with and are matched exactly unless a lookup asks for `Match.IgnoreCase` or
 * `Match.CanonicalMIME`.
 */
import { decodeUtf8, encodeUtf8 } from './utf8.js';

/** How a key given to a lookup is compared with the stored keys (as nats.js). */
export enum Match {
  /** Byte-for-byte equal (the default; nats-server compares keys this way). */
  Exact = 0,
  /** The given key is converted with {@link canonicalMIMEHeaderKey}, then compared exactly. */
  CanonicalMIME = 1,
  /** Equal ignoring letter case. */
  IgnoreCase = 2,
}

/** Headers of one message (the nats.js v3 `MsgHdrs` interface). */
export interface MsgHdrs extends Iterable<[string, string[]]> {
  /** True when the status code is 300 or above (e.g. 503 no responders, 404, 408). */
  readonly hasError: boolean;
  /** `"<code> <description>"`, e.g. `"408 Request Timeout"`; `""` when there is no status. */
  readonly status: string;
  /** Status code from the first line, 0 when there is none. */
  readonly code: number;
  /** Status description from the first line, `""` when there is none. */
  readonly description: string;
  /** First value of the key, or `""` when absent. */
  get(k: string, match?: Match): string;
  /** Replaces every value of the key with `v`. */
  set(k: string, v: string, match?: Match): void;
  /** Adds a value to the key (keys may hold several values). */
  append(k: string, v: string, match?: Match): void;
  has(k: string, match?: Match): boolean;
  /** Removes the key and all its values. */
  delete(k: string, match?: Match): void;
  /** Every value of the key, in order; empty when absent. */
  values(k: string, match?: Match): string[];
  /** The keys in insertion order, with the case they were set or received with. */
  keys(): string[];
  /** Last value of the key, or `""` when absent. */
  last(k: string, match?: Match): string;
}

export type HeaderErrorCode = 'INVALID_HEADER_KEY' | 'INVALID_HEADER_VALUE' | 'INVALID_STATUS';

/** A header key, value or status that cannot be written on the wire. */
export class HeaderError extends Error {
  constructor(
    readonly code: HeaderErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HeaderError';
  }
}

const COLON = 0x3a;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Checks a header key: one or more printable ASCII characters (33–126) other than `:`,
 * the field-name rule of RFC 822 that nats.js also applies. Returns the problem as a
 * value, or undefined when the key is fine.
 */
export function validateHeaderKey(key: string): HeaderError | undefined {
  if (key.length === 0) return new HeaderError('INVALID_HEADER_KEY', 'header key is empty');
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === COLON || c < 33 || c > 126) {
      return new HeaderError(
        'INVALID_HEADER_KEY',
        `${JSON.stringify(key[i])} is not a valid character in header key ${JSON.stringify(key)}`,
      );
    }
  }
  return undefined;
}

/** Checks a header value (or status description): anything but CR and LF. */
export function validateHeaderValue(value: string): HeaderError | undefined {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === CR || c === LF) {
      return new HeaderError('INVALID_HEADER_VALUE', 'header values cannot contain CR or LF');
    }
  }
  return undefined;
}

/** Upper-cases the first letter and each letter after '-', lower-cases the rest; no validation. */
function canonicalForm(key: string): string {
  let out = '';
  let upper = true;
  for (let i = 0; i < key.length; i++) {
    const ch = key[i]!;
    out += upper ? ch.toUpperCase() : ch.toLowerCase();
    upper = ch === '-';
  }
  return out;
}

/**
 * The canonical MIME form of a key (`content-type` → `Content-Type`), as Go's
 * net/textproto and nats.js produce it. Throws {@link HeaderError} for an invalid key.
 */
export function canonicalMIMEHeaderKey(key: string): string {
  const error = validateHeaderKey(key);
  if (error) throw error;
  return canonicalForm(key);
}

const VERSION = 'NATS/1.0';

/**
 * Builds message headers, optionally with a status line (`headers(503)`,
 * `headers(408, 'Request Timeout')`). Unlike nats.js a code may be given without a
 * description, since nats-server itself sends `NATS/1.0 503`. Throws {@link HeaderError}
 * for a code outside 0–999, or a description without a code or containing CR/LF.
 */
export function headers(code = 0, description = ''): MsgHdrsImpl {
  if (!Number.isInteger(code) || code < 0 || code > 999) {
    throw new HeaderError('INVALID_STATUS', `status code must be an integer 0-999, got ${code}`);
  }
  if (code === 0 && description !== '') {
    throw new HeaderError('INVALID_STATUS', 'a status description needs a status code');
  }
  const error = validateHeaderValue(description);
  if (error) throw new HeaderError('INVALID_STATUS', 'status descriptions cannot contain CR or LF');
  return new MsgHdrsImpl(code, description.trim());
}

export class MsgHdrsImpl implements MsgHdrs {
  #code: number;
  #description: string;
  /** Parsed entries; undefined while a decoded block has not been looked at yet. */
  #entries: Map<string, string[]> | undefined;
  /**
   * The encoded block: the received bytes after decode (until a change), or the result of
   * the last encode(). Undefined once the headers changed.
   */
  #encoded: Uint8Array | undefined;
  /** Offset in #encoded where the key lines start, for the lazy parse. */
  #bodyStart = 0;

  /** Prefer {@link headers}, which validates the status. */
  constructor(code = 0, description = '') {
    this.#code = code;
    this.#description = description;
    this.#entries = new Map();
    this.#encoded = undefined;
  }

  /**
   * Reads a header block as received in HMSG/HPUB. Only the status line is read now; the
   * key lines are parsed on first access, so delivering a message whose headers nobody
   * reads costs a few byte comparisons. Tolerant like nats.js and nats-server: LF-only
   * line ends, values containing ':', spaces after the colon, a missing final blank line
   * and lines without ':' (skipped) are all accepted. Never throws. The block is kept by
   * reference (not copied) and must not be mutated afterwards.
   */
  static decode(block: Uint8Array): MsgHdrsImpl {
    const h = new MsgHdrsImpl();
    h.#entries = undefined;
    h.#encoded = block;
    let lineEnd = block.indexOf(LF);
    if (lineEnd === -1) lineEnd = block.length;
    h.#bodyStart = Math.min(lineEnd + 1, block.length);
    if (lineEnd > 0 && block[lineEnd - 1] === CR) lineEnd--;
    h.#readStatus(block, lineEnd);
    return h;
  }

  /** Reads `NATS/1.0 <code> <description>` from block[0, end); anything else means no status. */
  #readStatus(block: Uint8Array, end: number): void {
    for (let v = 0; v < VERSION.length; v++) {
      if (block[v] !== VERSION.charCodeAt(v)) return;
    }
    let i = VERSION.length;
    if (i >= end || (block[i] !== SPACE && block[i] !== TAB)) return;
    while (i < end && (block[i] === SPACE || block[i] === TAB)) i++;
    let code = 0;
    const digitsStart = i;
    while (i < end && block[i]! >= 0x30 && block[i]! <= 0x39 && i - digitsStart < 3) {
      code = code * 10 + block[i]! - 0x30;
      i++;
    }
    if (i === digitsStart) return;
    this.#code = code;
    if (i < end) this.#description = decodeUtf8(block, i, end).trim();
  }

  /** The entries, parsing the received block on first use. */
  #map(): Map<string, string[]> {
    if (this.#entries) return this.#entries;
    const entries = new Map<string, string[]>();
    const block = this.#encoded!;
    const text = decodeUtf8(block, this.#bodyStart);
    let start = 0;
    // Position of the next ':' at or after `start`, reused across lines without one so a
    // block of colon-less lines is still read in linear time.
    let colon = -1;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      const lineEnd = end > start && text.charCodeAt(end - 1) === CR ? end - 1 : end;
      if (lineEnd === start) break; // the blank line that ends the block
      if (colon < start) colon = text.indexOf(':', start);
      if (colon === -1) break; // no further key line
      if (colon < lineEnd) {
        const key = text.slice(start, colon);
        const value = text.slice(colon + 1, lineEnd).trim();
        const values = entries.get(key);
        if (values) values.push(value);
        else entries.set(key, [value]);
      }
      start = end + 1;
    }
    this.#entries = entries;
    return entries;
  }

  /** Called before every change: the cached block no longer describes the headers. */
  #changing(): Map<string, string[]> {
    const entries = this.#map();
    this.#encoded = undefined;
    return entries;
  }

  /** The stored keys that `key` designates under `match`, in insertion order. */
  #matchingKeys(key: string, match: Match): string[] {
    const entries = this.#map();
    if (match === Match.IgnoreCase) {
      const wanted = key.toLowerCase();
      const found: string[] = [];
      for (const k of entries.keys()) if (k.toLowerCase() === wanted) found.push(k);
      return found;
    }
    const exact = match === Match.CanonicalMIME ? canonicalForm(key) : key;
    return entries.has(exact) ? [exact] : [];
  }

  [Symbol.iterator](): IterableIterator<[string, string[]]> {
    return this.#map().entries();
  }

  get code(): number {
    return this.#code;
  }

  get description(): string {
    return this.#description;
  }

  get status(): string {
    if (this.#code === 0) return '';
    return this.#description === '' ? `${this.#code}` : `${this.#code} ${this.#description}`;
  }

  get hasError(): boolean {
    return this.#code >= 300;
  }

  keys(): string[] {
    return [...this.#map().keys()];
  }

  values(k: string, match: Match = Match.Exact): string[] {
    const entries = this.#map();
    if (match === Match.Exact) return [...(entries.get(k) ?? [])];
    return this.#matchingKeys(k, match).flatMap((key) => entries.get(key)!);
  }

  get(k: string, match: Match = Match.Exact): string {
    if (match === Match.Exact) return this.#map().get(k)?.[0] ?? '';
    return this.values(k, match)[0] ?? '';
  }

  last(k: string, match: Match = Match.Exact): string {
    const values = match === Match.Exact ? this.#map().get(k) : this.values(k, match);
    return values?.[values.length - 1] ?? '';
  }

  has(k: string, match: Match = Match.Exact): boolean {
    if (match === Match.Exact) return this.#map().has(k);
    return this.#matchingKeys(k, match).length > 0;
  }

  /**
   * Adds a value. With `Match.CanonicalMIME` the key is stored in canonical form; with a
   * non-exact match an existing key that matches is reused, so `append('ID', v,
   * Match.IgnoreCase)` extends an existing `id`. Throws {@link HeaderError} for an invalid
   * key or a value containing CR/LF. Values are trimmed, as nats.js does.
   */
  append(k: string, v: string, match: Match = Match.Exact): void {
    const key = this.#storageKey(k, v, match);
    const entries = this.#changing();
    const value = v.trim();
    const values = entries.get(key);
    if (values) values.push(value);
    else entries.set(key, [value]);
  }

  /** Replaces all values of the key (every key matching under `match`). Throws like append. */
  set(k: string, v: string, match: Match = Match.Exact): void {
    // Validate before deleting so a rejected value loses nothing.
    this.#storageKey(k, v, match);
    this.delete(k, match);
    this.append(k, v, match);
  }

  delete(k: string, match: Match = Match.Exact): void {
    const keys = this.#matchingKeys(k, match);
    if (keys.length === 0) return;
    const entries = this.#changing();
    for (const key of keys) entries.delete(key);
  }

  /** Validates key and value and returns the key under which the value is stored. */
  #storageKey(k: string, v: string, match: Match): string {
    const error = validateHeaderKey(k) ?? validateHeaderValue(v);
    if (error) throw error;
    const key = match === Match.CanonicalMIME ? canonicalForm(k) : k;
    return match === Match.Exact ? key : (this.#matchingKeys(key, match)[0] ?? key);
  }

  /** The header block as text (what {@link encode} returns, decoded). */
  toString(): string {
    return this.#encoded ? decodeUtf8(this.#encoded) : this.#build();
  }

  /**
   * The header block as bytes, ready for HPUB/HMSG. Unchanged decoded headers return the
   * received block itself, so relaying costs nothing; the result is cached until the next
   * change. Treat it as read-only.
   */
  encode(): Uint8Array {
    this.#encoded ??= encodeUtf8(this.#build());
    return this.#encoded;
  }

  /** Canonical text of the block: CRLF line ends, values grouped by key, final blank line. */
  #build(): string {
    let s = VERSION;
    if (this.#code > 0) s += ` ${this.#code}`;
    if (this.#description !== '') s += ` ${this.#description}`;
    s += '\r\n';
    for (const [key, values] of this.#map()) {
      for (const value of values) s += `${key}: ${value}\r\n`;
    }
    return `${s}\r\n`;
  }

  /** Exact size in bytes of {@link encode}'s result: the `<#header bytes>` of HPUB/HMSG. */
  get size(): number {
    return this.encode().length;
  }
}
