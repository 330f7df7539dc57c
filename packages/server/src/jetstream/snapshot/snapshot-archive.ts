/**
 * The content of a stream snapshot: our own format, not nats-server's (an s2-compressed tar of
 * its block files). It is a fixed magic followed by framed records, each
 * `kind (1 byte) | body length (4 bytes, big endian) | body | CRC-32 of the kind, length and body`:
 * one `meta` record (the stream's config, creation time and last sequence), then the body, then
 * an `end` record with the counts. A file stream's body is its SQLite database file in
 * `database` records of up to 128 KiB (consumers included, as the file keeps them); a memory
 * stream's body is `messages` records, each holding the stored messages that fit in about
 * 128 KiB. Archives of earlier versions have a `message` record per message and a `consumer`
 * record per consumer; they are still read. A restore trusts nothing it has not checked: the magic, every record's CRC, the record
 * order, the counts in `end`, and that nothing follows it; a missing `end` is a truncated archive.
 */
import { crc32 } from 'node:zlib';
import type { StreamConfig } from '@slipstream/jsapi';
import type { SavedConsumer, StoredMessage } from '../store/message-store.js';

const MAGIC = Buffer.from('SLIPSNP1');
const HEADER = 5;
const TRAILER = 4;
/** Far above any message a stream accepts: a larger length is garbage, refused before buffering. */
const MAX_BODY = 256 * 1024 * 1024;

const KIND = { meta: 1, message: 2, consumer: 3, end: 4, messages: 5, database: 6 } as const;
/** A `messages` record is closed once its body reaches this size. */
const BATCH_BYTES = 128 * 1024;

export interface ArchiveMeta {
  config: StreamConfig;
  /** Nanoseconds since the epoch. */
  created: bigint;
  /** The stream's last sequence and its time, which outlive the message that had them. */
  lastSeq: number;
  lastTime: bigint;
}

export type ArchiveRecord =
  | { kind: 'meta'; meta: ArchiveMeta }
  | { kind: 'message'; message: StoredMessage }
  | { kind: 'consumer'; consumer: SavedConsumer }
  /** A piece of a file stream's database file, in order. */
  | { kind: 'database'; bytes: Buffer }
  /** `database` is the database file's size in bytes (0 without one). */
  | { kind: 'end'; messages: number; consumers: number; database: number };

/** A restore's archive was not what a snapshot writes. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

export function archiveMagic(): Buffer {
  return Buffer.from(MAGIC);
}

/** Every record but messages, which go in batches (`encodeMessages`). */
export function encodeRecord(
  record: Exclude<ArchiveRecord, { kind: 'message' } | { kind: 'database' }>,
): Buffer {
  switch (record.kind) {
    case 'meta': {
      const { config, created, lastSeq, lastTime } = record.meta;
      return frame(
        KIND.meta,
        json({
          config,
          created: created.toString(),
          last_seq: lastSeq,
          last_time: lastTime.toString(),
        }),
      );
    }
    case 'consumer': {
      const { name, config, created, state } = record.consumer;
      return frame(KIND.consumer, json({ name, config, created: created.toString(), state }));
    }
    case 'end': {
      const { messages, consumers, database } = record;
      return frame(KIND.end, json({ messages, consumers, database }));
    }
  }
}

function json(value: object): Buffer {
  return Buffer.from(JSON.stringify(value));
}

function frame(kind: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER + body.length + TRAILER);
  out.writeUInt8(kind, 0);
  out.writeUInt32BE(body.length, 1);
  body.copy(out, HEADER);
  out.writeUInt32BE(crc32(out.subarray(0, HEADER + body.length)), HEADER + body.length);
  return out;
}

/**
 * The `database` records of a file read by `readInto` (which fills its target from the file's
 * next bytes and returns how many it read, 0 at the end), each up to `pieceSize` bytes, framed
 * where they were read: the file's bytes are copied once. Returns the file's size.
 */
export function* encodeDatabase(
  readInto: (target: Buffer) => number,
  pieceSize: number,
): Generator<Buffer, number> {
  let total = 0;
  for (;;) {
    const out = Buffer.allocUnsafe(HEADER + pieceSize + TRAILER);
    const read = readInto(out.subarray(HEADER, HEADER + pieceSize));
    if (read === 0) return total;
    total += read;
    out.writeUInt8(KIND.database, 0);
    out.writeUInt32BE(read, 1);
    out.writeUInt32BE(crc32(out.subarray(0, HEADER + read)), HEADER + read);
    yield out.subarray(0, HEADER + read + TRAILER);
  }
}

/** The `messages` records of `messages`, in order. */
export function* encodeMessages(messages: Iterable<StoredMessage>): Generator<Buffer> {
  let batch: StoredMessage[] = [];
  let size = 0;
  for (const message of messages) {
    batch.push(message);
    size += encodedSize(message);
    if (size < BATCH_BYTES) continue;
    yield messagesRecord(batch, size);
    batch = [];
    size = 0;
  }
  if (batch.length > 0) yield messagesRecord(batch, size);
}

/** seq (8) | time (8) | subject length (2) | headers length (4) | payload length (4). */
const ENTRY_FIXED = 26;

function encodedSize(message: StoredMessage): number {
  const headers = message.headers?.length ?? 0;
  return ENTRY_FIXED + Buffer.byteLength(message.subject) + headers + message.payload.length;
}

/** One frame of entries `fixed | subject | headers | payload`, written in place. */
function messagesRecord(batch: StoredMessage[], size: number): Buffer {
  const out = Buffer.allocUnsafe(HEADER + size + TRAILER);
  out.writeUInt8(KIND.messages, 0);
  out.writeUInt32BE(size, 1);
  let at = HEADER;
  for (const message of batch) {
    const subjectLength = out.write(message.subject, at + ENTRY_FIXED);
    const headers = message.headers ?? EMPTY;
    // The sequence as two 32-bit halves: no BigInt made per message.
    out.writeUInt32BE(Math.floor(message.seq / 2 ** 32), at);
    out.writeUInt32BE(message.seq >>> 0, at + 4);
    out.writeBigInt64BE(message.time, at + 8);
    out.writeUInt16BE(subjectLength, at + 16);
    out.writeUInt32BE(headers.length, at + 18);
    out.writeUInt32BE(message.payload.length, at + 22);
    at += ENTRY_FIXED + subjectLength;
    out.set(headers, at);
    at += headers.length;
    out.set(message.payload, at);
    at += message.payload.length;
  }
  out.writeUInt32BE(crc32(out.subarray(0, HEADER + size)), HEADER + size);
  return out;
}

const EMPTY = new Uint8Array(0);

/** The entries of a `messages` record. */
function decodeMessages(body: Buffer): StoredMessage[] {
  const messages: StoredMessage[] = [];
  let at = 0;
  while (at < body.length) {
    if (body.length - at < ENTRY_FIXED) throw new ArchiveError('message entry too short');
    const subjectEnd = at + ENTRY_FIXED + body.readUInt16BE(at + 16);
    const headersEnd = subjectEnd + body.readUInt32BE(at + 18);
    const payloadEnd = headersEnd + body.readUInt32BE(at + 22);
    if (payloadEnd > body.length) throw new ArchiveError('message entry lengths exceed the record');
    messages.push({
      seq: Number(body.readBigUInt64BE(at)),
      time: body.readBigInt64BE(at + 8),
      subject: body.toString('utf8', at + ENTRY_FIXED, subjectEnd),
      headers: headersEnd > subjectEnd ? body.subarray(subjectEnd, headersEnd) : undefined,
      payload: body.subarray(headersEnd, payloadEnd),
    });
    at = payloadEnd;
  }
  return messages;
}

/**
 * A `message` record of an earlier version's archive:
 * seq (8) | time (8) | subject length (2) | headers length (4) | subject | headers | payload.
 */
function decodeMessage(body: Buffer): StoredMessage {
  if (body.length < 22) throw new ArchiveError('message record too short');
  const subjectEnd = 22 + body.readUInt16BE(16);
  const headersEnd = subjectEnd + body.readUInt32BE(18);
  if (headersEnd > body.length) throw new ArchiveError('message record lengths exceed the record');
  return {
    seq: Number(body.readBigUInt64BE(0)),
    time: body.readBigInt64BE(8),
    subject: body.subarray(22, subjectEnd).toString(),
    headers: headersEnd > subjectEnd ? body.subarray(subjectEnd, headersEnd) : undefined,
    payload: body.subarray(headersEnd),
  };
}

/**
 * Reads an archive as it arrives in chunks of any size, checking the framing as it goes:
 * `push` returns the records completed by a chunk and throws an ArchiveError at the first
 * thing that is wrong; `finish` says whether the archive ended properly.
 */
export class ArchiveReader {
  #parts: Buffer[] = [];
  #buffered = 0;
  #needed = MAGIC.length;
  #magicSeen = false;
  #metaSeen = false;
  #ended = false;
  #messages = 0;
  #consumers = 0;
  #database = 0;

  push(chunk: Uint8Array): ArchiveRecord[] {
    if (this.#ended) throw new ArchiveError('data after the end of the archive');
    this.#parts.push(Buffer.from(chunk));
    this.#buffered += chunk.length;
    if (this.#buffered < this.#needed) return [];
    let data = Buffer.concat(this.#parts);
    const records: ArchiveRecord[] = [];
    if (!this.#magicSeen) {
      if (!data.subarray(0, MAGIC.length).equals(MAGIC)) {
        throw new ArchiveError('not a stream snapshot (unknown format)');
      }
      this.#magicSeen = true;
      data = data.subarray(MAGIC.length);
    }
    while (data.length >= HEADER) {
      const length = data.readUInt32BE(1);
      if (length > MAX_BODY) throw new ArchiveError(`record of ${length} bytes is too large`);
      const total = HEADER + length + TRAILER;
      if (data.length < total) {
        this.#needed = total;
        break;
      }
      if (crc32(data.subarray(0, HEADER + length)) !== data.readUInt32BE(HEADER + length)) {
        throw new ArchiveError('record checksum mismatch');
      }
      // The body is copied out of the shared buffer: stored messages keep their own bytes.
      records.push(
        ...this.#decode(data.readUInt8(0), Buffer.from(data.subarray(HEADER, HEADER + length))),
      );
      data = data.subarray(total);
      if (this.#ended && data.length > 0)
        throw new ArchiveError('data after the end of the archive');
    }
    if (data.length < HEADER) this.#needed = HEADER;
    this.#parts = data.length > 0 ? [data] : [];
    this.#buffered = data.length;
    return records;
  }

  /** Throws unless the archive ended with its `end` record. */
  finish(): void {
    if (!this.#ended) throw new ArchiveError('archive truncated: it has no end record');
  }

  #decode(kind: number, body: Buffer): ArchiveRecord[] {
    try {
      return this.#accept(kind, body);
    } catch (error) {
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError(`malformed record: ${(error as Error).message}`);
    }
  }

  #accept(kind: number, body: Buffer): ArchiveRecord[] {
    if (kind !== KIND.meta && !this.#metaSeen)
      throw new ArchiveError('archive does not start with its metadata');
    switch (kind) {
      case KIND.meta: {
        if (this.#metaSeen) throw new ArchiveError('second metadata record');
        this.#metaSeen = true;
        const parsed = parseJson(body) as {
          config: StreamConfig;
          created: string;
          last_seq: number;
          last_time: string;
        };
        const meta = {
          config: parsed.config,
          created: BigInt(parsed.created),
          lastSeq: parsed.last_seq,
          lastTime: BigInt(parsed.last_time),
        };
        return [{ kind: 'meta', meta }];
      }
      case KIND.message:
        this.#messages++;
        return [{ kind: 'message', message: decodeMessage(body) }];
      case KIND.messages: {
        const messages = decodeMessages(body);
        this.#messages += messages.length;
        return messages.map((message) => ({ kind: 'message', message }));
      }
      case KIND.consumer: {
        this.#consumers++;
        const parsed = parseJson(body) as {
          name: string;
          config: string;
          created: string;
          state?: string;
        };
        const consumer = {
          name: parsed.name,
          config: parsed.config,
          created: BigInt(parsed.created),
          state: parsed.state,
        };
        return [{ kind: 'consumer', consumer }];
      }
      case KIND.database:
        this.#database += body.length;
        return [{ kind: 'database', bytes: body }];
      case KIND.end: {
        const parsed = parseJson(body) as {
          messages: number;
          consumers: number;
          database?: number;
        };
        // Archives of earlier versions have no database count.
        const counts = { ...parsed, database: parsed.database ?? 0 };
        if (counts.messages !== this.#messages || counts.consumers !== this.#consumers) {
          throw new ArchiveError(
            `archive holds ${this.#messages} messages and ${this.#consumers} consumers, its end record says ${counts.messages} and ${counts.consumers}`,
          );
        }
        if (counts.database !== this.#database) {
          throw new ArchiveError(
            `archive holds ${this.#database} bytes of database, its end record says ${counts.database}`,
          );
        }
        this.#ended = true;
        return [{ kind: 'end', ...counts }];
      }
      default:
        throw new ArchiveError(`unknown record kind ${kind}`);
    }
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    throw new ArchiveError('record is not valid JSON');
  }
}
