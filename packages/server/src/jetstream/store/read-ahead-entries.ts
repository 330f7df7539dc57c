/**
 * The read-ahead's rows as two blobs instead of a row object per message: better-sqlite3 builds
 * each row as an array and stores every column into it through V8's generic element path, about
 * 90 ns a column, an eighth of a pull consume's CPU. One query gives every row's fields as text
 * (sqlite-schema.ts `selectAheadEntries`), which this reads byte by byte, and another the rows'
 * headers and payloads end to end (`selectAheadBodies`), which the entries' lengths cut up.
 *
 * An entry is `seq time headersLength payloadLength checksum encoding size subjectLength ` in
 * decimal, each number followed by a space, then the subject's UTF-8 bytes; headersLength is -1
 * for a row without headers.
 */
import { decodeSubject } from '@slipstream/protocol';

export interface AheadRow {
  readonly seq: number;
  readonly time: bigint;
  readonly subject: string;
  readonly checksum: number;
  /** How the payload is kept (payload-codec.ts). */
  readonly encoding: number;
  readonly size: number;
  /** Cut from the bodies once they are read (`withBodies`); -1: none. */
  readonly headersLength: number;
  readonly payloadLength: number;
  headers: Buffer | null;
  payload: Buffer;
}

const SPACE = 0x20;
const MINUS = 0x2d;
const ZERO = 0x30;
/** Digits a double holds exactly; a time with more is read in two parts. */
const EXACT_DIGITS = 15;
const LOW_DIGITS = 9;
const LOW_SCALE = 1_000_000_000n;
const NO_BYTES = Buffer.alloc(0);

/**
 * Reads `entries` (see above) in order. Every read stays inside the blob: a read past a typed
 * array's end made V8 compile the protocol parser's byte comparisons as calls (its plainPub).
 */
class EntryReader {
  at = 0;
  // The last field read by #field(): its first digit (after any minus) and the space ending it.
  #start = 0;
  #end = 0;
  #negative = false;

  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  #field(): void {
    const bytes = this.bytes;
    const length = bytes.length;
    let start = this.at;
    this.#negative = start < length && bytes[start] === MINUS;
    if (this.#negative) start++;
    let end = start;
    while (end < length && bytes[end] !== SPACE) end++;
    this.#start = start;
    this.#end = end;
    this.at = end + 1;
  }

  number(): number {
    this.#field();
    const bytes = this.bytes;
    let value = 0;
    for (let i = this.#start; i < this.#end; i++) value = value * 10 + bytes[i]! - ZERO;
    return this.#negative ? -value : value;
  }

  /** A time in nanoseconds, which passes what a double holds exactly. */
  bigNumber(): bigint {
    this.#field();
    const bytes = this.bytes;
    const start = this.#start;
    const end = this.#end;
    const split = end - start > EXACT_DIGITS ? end - LOW_DIGITS : end;
    let high = 0;
    for (let i = start; i < split; i++) high = high * 10 + bytes[i]! - ZERO;
    let value = BigInt(high);
    if (split < end) {
      let low = 0;
      for (let i = split; i < end; i++) low = low * 10 + bytes[i]! - ZERO;
      value = value * LOW_SCALE + BigInt(low);
    }
    return this.#negative ? -value : value;
  }

  text(length: number): string {
    const start = this.at;
    this.at = Math.min(this.bytes.length, start + length);
    return decodeSubject(this.bytes, start, this.at);
  }
}

/** The rows the entries describe, in the blob's order (sequence order), still without bodies. */
export function readEntries(entries: Uint8Array): AheadRow[] {
  const reader = new EntryReader(entries);
  const rows: AheadRow[] = [];
  while (!reader.done) {
    rows.push({
      seq: reader.number(),
      time: reader.bigNumber(),
      headersLength: reader.number(),
      payloadLength: reader.number(),
      checksum: reader.number(),
      encoding: reader.number(),
      size: reader.number(),
      subject: reader.text(reader.number()),
      headers: null,
      payload: NO_BYTES,
    });
  }
  return rows;
}

/** Gives each row its headers and payload, views into `bodies` (theirs end to end, in order). */
export function withBodies(rows: AheadRow[], bodies: Buffer): Map<number, AheadRow> {
  const bySeq = new Map<number, AheadRow>();
  let at = 0;
  for (const row of rows) {
    if (row.headersLength >= 0) {
      row.headers = bodies.subarray(at, at + row.headersLength);
      at += row.headersLength;
    }
    row.payload = bodies.subarray(at, at + row.payloadLength);
    at += row.payloadLength;
    bySeq.set(row.seq, row);
  }
  return bySeq;
}
