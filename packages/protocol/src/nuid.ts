/**
 * Unique ids in the layout of the NATS NUID: 22 base62 characters, a 12-character
 * prefix drawn from a CSPRNG followed by a 10-character sequence that advances by a
 * random step. Ids are unique without coordination and cheap enough to make one per
 * request inbox; they are not secrets (the sequence part is predictable).
 */
import { isValidPublishSubject } from './subjects.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = 62;
const PREFIX_LENGTH = 12;
const SEQUENCE_LENGTH = 10;
const TOTAL_LENGTH = PREFIX_LENGTH + SEQUENCE_LENGTH;
const MIN_INCREMENT = 33;
const MAX_INCREMENT = 333;
const UNBIASED_BYTE_LIMIT = 4 * BASE;

const ALPHABET_CODES = Uint8Array.from(ALPHABET, (ch) => ch.charCodeAt(0));

/** Source of random bytes; fills the whole array. */
export type RandomFill = (bytes: Uint8Array) => void;

const cryptoFill: RandomFill = (bytes) => {
  globalThis.crypto.getRandomValues(bytes);
};

/** Generator of NUIDs. Not shared between threads; use the {@link nuid} singleton. */
export class Nuid {
  /**
   * Base62 digit values of the current id: prefix in [0, 12), sequence in [12, 22).
   * The sequence is kept as digits and advanced with a carry, which covers the full
   * 62^10 range without BigInt (62^10 exceeds Number.MAX_SAFE_INTEGER).
   */
  readonly #digits = new Uint8Array(TOTAL_LENGTH);
  /** Character codes of the same id, updated digit by digit so next() only builds the string. */
  readonly #codes: number[] = new Array<number>(TOTAL_LENGTH).fill(0);
  readonly #random: RandomFill;
  #increment = 0;

  /** @param random where randomness comes from; crypto.getRandomValues unless a test injects one. */
  constructor(random: RandomFill = cryptoFill) {
    this.#random = random;
    this.#renew();
  }

  /** The next id: 22 characters from [0-9A-Za-z]. */
  next(): string {
    if (this.#advance()) this.#renew();
    return String.fromCharCode(...this.#codes);
  }

  /** Picks a new random prefix, sequence start and increment. */
  #renew(): void {
    const digits = this.#digits;
    // Rejecting bytes >= 248 keeps `byte % 62` uniform; 2 bytes per digit almost always suffice.
    const bytes = new Uint8Array(TOTAL_LENGTH * 2);
    let filled = 0;
    while (filled < TOTAL_LENGTH) {
      this.#random(bytes);
      for (let i = 0; i < bytes.length && filled < TOTAL_LENGTH; i++) {
        const b = bytes[i]!;
        if (b < UNBIASED_BYTE_LIMIT) digits[filled++] = b % BASE;
      }
    }
    for (let i = 0; i < TOTAL_LENGTH; i++) this.#codes[i] = ALPHABET_CODES[digits[i]!]!;
    this.#random(bytes.subarray(0, 2));
    const spread = MAX_INCREMENT - MIN_INCREMENT;
    this.#increment = MIN_INCREMENT + (((bytes[0]! << 8) | bytes[1]!) % spread);
  }

  /** Adds the increment to the sequence digits; true when the sequence wrapped around. */
  #advance(): boolean {
    const d = this.#digits;
    let carry = this.#increment;
    for (let i = TOTAL_LENGTH - 1; i >= PREFIX_LENGTH && carry > 0; i--) {
      const sum = d[i]! + carry;
      d[i] = sum % BASE;
      this.#codes[i] = ALPHABET_CODES[d[i]!]!;
      carry = Math.floor(sum / BASE);
    }
    return carry > 0;
  }
}

/** Process-wide generator, as nats.js exports it. */
export const nuid: Nuid = new Nuid();

/** Thrown by {@link createInbox} for a prefix that is not a valid literal subject. */
export class InvalidInboxPrefixError extends Error {
  readonly code = 'INVALID_INBOX_PREFIX' as const;
  constructor(readonly prefix: string) {
    super(`inbox prefix must be a valid literal subject, got ${JSON.stringify(prefix)}`);
    this.name = 'InvalidInboxPrefixError';
  }
}

/** A fresh reply subject, `<prefix>.<nuid>`; an empty prefix means `_INBOX`, as in nats.js. */
export function createInbox(prefix = '_INBOX'): string {
  const base = prefix === '' ? '_INBOX' : prefix;
  if (!isValidPublishSubject(base)) throw new InvalidInboxPrefixError(prefix);
  return `${base}.${nuid.next()}`;
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** NKey prefix byte for server keys; it makes the encoded key start with 'N'. */
const SERVER_KEY_PREFIX = 13 << 3;
const KEY_LENGTH = 32;

/** CRC-16/XMODEM (polynomial 0x1021), the checksum NKeys append to a key. */
function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

function base32(data: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of data) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * A 56-character server id shaped like an NKey server public key ('N' + base32 of a
 * random 32-byte key and its CRC-16), as nats-server puts in INFO `server_id`. The key
 * is random bytes, not an Ed25519 public key: nothing can be verified against it.
 */
export function serverId(): string {
  const raw = new Uint8Array(1 + KEY_LENGTH + 2);
  raw[0] = SERVER_KEY_PREFIX;
  cryptoFill(raw.subarray(1, 1 + KEY_LENGTH));
  const checksum = crc16(raw.subarray(0, 1 + KEY_LENGTH));
  raw[1 + KEY_LENGTH] = checksum & 0xff;
  raw[2 + KEY_LENGTH] = checksum >> 8;
  return base32(raw);
}
