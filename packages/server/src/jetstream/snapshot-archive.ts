/**
 * The content of a stream snapshot: our own format, not nats-server's (an s2-compressed tar of
 * its block files). It is a fixed magic followed by framed records, each
 * `kind (1 byte) | body length (4 bytes, big endian) | body | CRC-32 of the kind, length and body`:
 * one `meta` record (the stream's config, creation time and last sequence), a `message` record
 * per stored message, a `consumer` record per saved consumer, and an `end` record with the
 * counts. A restore trusts nothing it has not checked: the magic, every record's CRC, the record
 * order, the counts in `end`, and that nothing follows it; a missing `end` is a truncated archive.
 */
import { crc32 } from 'node:zlib';
import type { StreamConfig } from '@slipstream/jsapi';
import type { SavedConsumer, StoredMessage } from './store/message-store.js';

const MAGIC = Buffer.from('SLIPSNP1');
const HEADER = 5;
const TRAILER = 4;
/** Far above any message a stream accepts: a larger length is garbage, refused before buffering. */
const MAX_BODY = 256 * 1024 * 1024;

const KIND = { meta: 1, message: 2, consumer: 3, end: 4 } as const;

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
  | { kind: 'end'; messages: number; consumers: number };

/** A restore's archive was not what a snapshot writes. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

export function archiveMagic(): Buffer {
  return Buffer.from(MAGIC);
}

export function encodeRecord(record: ArchiveRecord): Buffer {
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
    case 'message':
      return frame(KIND.message, encodeMessage(record.message));
    case 'consumer': {
      const { name, config, created, state } = record.consumer;
      return frame(KIND.consumer, json({ name, config, created: created.toString(), state }));
    }
    case 'end':
      return frame(KIND.end, json({ messages: record.messages, consumers: record.consumers }));
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

/** seq (8) | time (8) | subject length (2) | headers length (4) | subject | headers | payload. */
function encodeMessage(message: StoredMessage): Buffer {
  const subject = Buffer.from(message.subject);
  const headers = message.headers ?? new Uint8Array(0);
  const fixed = Buffer.allocUnsafe(22);
  fixed.writeBigUInt64BE(BigInt(message.seq), 0);
  fixed.writeBigInt64BE(message.time, 8);
  fixed.writeUInt16BE(subject.length, 16);
  fixed.writeUInt32BE(headers.length, 18);
  return Buffer.concat([fixed, subject, headers, message.payload]);
}

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
        this.#decode(data.readUInt8(0), Buffer.from(data.subarray(HEADER, HEADER + length))),
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

  #decode(kind: number, body: Buffer): ArchiveRecord {
    try {
      return this.#accept(kind, body);
    } catch (error) {
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError(`malformed record: ${(error as Error).message}`);
    }
  }

  #accept(kind: number, body: Buffer): ArchiveRecord {
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
        return {
          kind: 'meta',
          meta: {
            config: parsed.config,
            created: BigInt(parsed.created),
            lastSeq: parsed.last_seq,
            lastTime: BigInt(parsed.last_time),
          },
        };
      }
      case KIND.message:
        this.#messages++;
        return { kind: 'message', message: decodeMessage(body) };
      case KIND.consumer: {
        this.#consumers++;
        const parsed = parseJson(body) as {
          name: string;
          config: string;
          created: string;
          state?: string;
        };
        return {
          kind: 'consumer',
          consumer: {
            name: parsed.name,
            config: parsed.config,
            created: BigInt(parsed.created),
            state: parsed.state,
          },
        };
      }
      case KIND.end: {
        const counts = parseJson(body) as { messages: number; consumers: number };
        if (counts.messages !== this.#messages || counts.consumers !== this.#consumers) {
          throw new ArchiveError(
            `archive holds ${this.#messages} messages and ${this.#consumers} consumers, its end record says ${counts.messages} and ${counts.consumers}`,
          );
        }
        this.#ended = true;
        return { kind: 'end', ...counts };
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
