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
 * direct-mapped, so a miss costs one decode plus a copy of at most MAX_CACHED_SUBJECT bytes,
 * and it never grows.
 *
 * The parser hashes a subject while it scans the control line (FNV-1a over its bytes, starting
 * from SUBJECT_HASH_SEED and multiplying by SUBJECT_HASH_PRIME), so a lookup reads the subject's
 * bytes only to compare them.
 */

export const SUBJECT_HASH_SEED = 0x811c9dc5 | 0;
export const SUBJECT_HASH_PRIME = 0x01000193;

/** Longer subjects (JetStream ack subjects, say) are mostly unique and are decoded every time. */
const MAX_CACHED_SUBJECT = 64;
const SLOTS = 4096;

// Slot k holds a subject of lengths[k] bytes (0: empty) at keys[k * MAX_CACHED_SUBJECT ...].
let keys: Uint8Array | undefined;
const lengths = new Uint8Array(SLOTS);
const strings: string[] = new Array<string>(SLOTS).fill('');

/**
 * The subject `bytes[start, end)` as decodeSubject gives it, from the table when the same bytes
 * were seen last in its slot. `hash` is its FNV-1a hash (see above); `ascii` as for decodeSubject.
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
  // Fold the high bits in: FNV-1a's low bits alone spread short keys poorly.
  const slot = (hash ^ (hash >>> 15)) & (SLOTS - 1);
  const at = slot * MAX_CACHED_SUBJECT;
  keys ??= new Uint8Array(SLOTS * MAX_CACHED_SUBJECT);
  if (lengths[slot] === length) {
    let i = 0;
    while (i < length && keys[at + i] === bytes[start + i]) i++;
    if (i === length) return strings[slot];
  }
  const subject = decodeSubject(bytes, start, end, ascii);
  for (let i = 0; i < length; i++) keys[at + i] = bytes[start + i];
  lengths[slot] = length;
  strings[slot] = subject;
  return subject;
}
