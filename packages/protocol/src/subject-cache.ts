import { decodeSubject } from './utf8.js';

/**
 * The strings of recently seen message subjects, keyed on their bytes. A stream of messages
 * mostly repeats a modest set of subjects; decoding one costs a TextDecoder call for anything
 * longer than a few bytes, and every consumer of the string then hashes it again (a Map lookup in
 * the server's sublist, for one). Comparing the bytes with a remembered copy is cheaper than
 * decoding, and handing out the same string instance lets V8 reuse the hash it cached on it.
 *
 * One table for the whole process, shared by every parser in it: subjects repeat across
 * connections too, and a table per connection would cost its memory once per connection. It is
 * two-way set-associative (a subject's hash picks a set of two slots; a miss replaces the slot
 * used less recently), so a few colliding subjects do not evict each other on every message;
 * a miss costs one decode plus a copy of at most MAX_CACHED_SUBJECT bytes, and it never grows.
 *
 * The parser hashes a subject while it scans the control line (FNV-1a over its bytes, starting
 * from SUBJECT_HASH_SEED and multiplying by SUBJECT_HASH_PRIME), so a lookup reads the subject's
 * bytes only to compare them.
 */

export const SUBJECT_HASH_SEED = 0x811c9dc5 | 0;
export const SUBJECT_HASH_PRIME = 0x01000193;

/** Longer subjects (JetStream ack subjects, say) are mostly unique and are decoded every time. */
const MAX_CACHED_SUBJECT = 64;
const SETS = 2048;

// Slot k (set k >> 1) holds a subject of lengths[k] bytes (0: empty) at
// keys[k * MAX_CACHED_SUBJECT ...]; recent[set] is the set's slot that was used last. 256 KiB
// allocated up front: a table created on first use cost every lookup a check (measured).
const keys = new Uint8Array(2 * SETS * MAX_CACHED_SUBJECT);
const lengths = new Uint8Array(2 * SETS);
const strings: string[] = Array.from({ length: 2 * SETS }, () => '');
const recent = new Uint8Array(SETS);

/**
 * The subject `bytes[start, end)` as decodeSubject gives it, from the table when the same bytes
 * are in it. `hash` is their FNV-1a hash (see above); `ascii` as for decodeSubject.
 */
export function cachedSubject(
  bytes: Uint8Array,
  start: number,
  end: number,
  hash: number,
  ascii: boolean,
): string {
  const length = end - start;
  if (length > MAX_CACHED_SUBJECT) return decodeSubject(bytes, start, end, ascii);
  // Mix the high bits in: FNV-1a's low bits alone spread keys that differ at the end poorly.
  const mixed = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  const set = (mixed ^ (mixed >>> 13)) & (SETS - 1);
  let slot = 2 * set;
  if (!holds(slot, bytes, start, length) && !holds(++slot, bytes, start, length)) {
    return remember(set, bytes, start, end, ascii);
  }
  recent[set] = slot & 1;
  return strings[slot];
}

/** True when `slot` holds the subject `bytes[start, start + length)`. */
function holds(slot: number, bytes: Uint8Array, start: number, length: number): boolean {
  if (lengths[slot] !== length) return false;
  const at = slot * MAX_CACHED_SUBJECT;
  for (let i = 0; i < length; i++) if (keys[at + i] !== bytes[start + i]) return false;
  return true;
}

/** A miss, kept apart so the hit path stays small: decodes and replaces the set's older slot. */
function remember(
  set: number,
  bytes: Uint8Array,
  start: number,
  end: number,
  ascii: boolean,
): string {
  const subject = decodeSubject(bytes, start, end, ascii);
  const way = 1 - recent[set];
  const slot = 2 * set + way;
  const at = slot * MAX_CACHED_SUBJECT;
  for (let i = start; i < end; i++) keys[at + i - start] = bytes[i];
  lengths[slot] = end - start;
  strings[slot] = subject;
  recent[set] = way;
  return subject;
}
