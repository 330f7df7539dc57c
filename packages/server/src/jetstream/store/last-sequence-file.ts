/**
 * A file store's last sequence kept outside its database, as nats-server keeps a stream's last
 * sequence in its index beside the message blocks: when the database is damaged where its newest
 * rows were (a truncated file's end, a WAL cut short), the rows that tell how far the sequences
 * went are gone with it, and a rebuild would name fewer lost messages than were acknowledged and
 * hand their sequences out again. This file says how far they went.
 *
 * 20 bytes at offset 0, rewritten in place: the sequence and its time (nanoseconds) as 64-bit
 * big-endian integers, then a CRC-32 of both. It is written once a commit holding a new last
 * sequence is durable, before its PubAcks go out, so it never names a sequence the database
 * might not hold after a power loss, and every acknowledged sequence is at or below it. Written,
 * not synced, on that path (a write reaches the page cache, which a killed process leaves
 * intact): it is synced before the WAL, the other place the newest rows are, is emptied (the
 * idle checkpoint) and when the store closes.
 */
import {
  closeSync,
  constants,
  fdatasync,
  fsyncSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';

const SIZE = 20;

/** The file beside a stream's `messages.db`. */
export const lastSequencePath = (dir: string) => join(dir, 'messages.last');

export interface LastSequence {
  seq: number;
  time: bigint;
}

/**
 * What the file at `path` says: the last sequence, `undefined` when there is none (a store from
 * before the file, or an empty file), or `damaged` (its size or checksum wrong) with why.
 */
export function readLastSequence(path: string): LastSequence | { damaged: string } | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { damaged: `messages.last cannot be read: ${(error as Error).message}` };
  }
  // Created, then lost to a power loss before its first sync: no record, not damage.
  if (bytes.length === 0) return undefined;
  if (bytes.length !== SIZE) {
    return { damaged: `messages.last is damaged (${bytes.length} bytes, not ${SIZE})` };
  }
  if (crc32(bytes.subarray(0, 16)) !== bytes.readUInt32BE(16)) {
    return { damaged: 'messages.last is damaged (checksum mismatch)' };
  }
  const seq = bytes.readBigUInt64BE(0);
  if (seq > BigInt(Number.MAX_SAFE_INTEGER)) {
    return { damaged: 'messages.last is damaged (no sequence)' };
  }
  return { seq: Number(seq), time: bytes.readBigInt64BE(8) };
}

export class LastSequenceFile {
  private fd: number | undefined;
  private written = -1;
  /** Written since the last sync. */
  private unsynced = false;
  private readonly bytes = Buffer.alloc(SIZE);

  constructor(private readonly path: string) {}

  /** Records `seq` (when it changed); a failure is thrown to the caller. */
  write(seq: number, time: bigint): void {
    if (seq === this.written) return;
    this.fd ??= this.open();
    this.bytes.writeBigUInt64BE(BigInt(seq), 0);
    this.bytes.writeBigInt64BE(time, 8);
    this.bytes.writeUInt32BE(crc32(this.bytes.subarray(0, 16)), 16);
    writeSync(this.fd, this.bytes, 0, SIZE, 0);
    this.written = seq;
    this.unsynced = true;
  }

  /**
   * Opens the file, or creates it and syncs its directory for its entry. A file that exists had
   * its entry synced by the open that created it: syncing the directory again on every reopen
   * was a millisecond per stream at each start (a directory's fsync), the largest part of
   * reopening a small stream.
   */
  private open(): number {
    try {
      return openSync(this.path, constants.O_RDWR);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
    try {
      const dir = openSync(dirname(this.path), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  /** Makes what was written since the last sync durable, on the thread pool. */
  sync(): Promise<void> {
    const fd = this.fd;
    if (fd === undefined || !this.unsynced) return Promise.resolve();
    this.unsynced = false;
    return new Promise((resolve, reject) =>
      fdatasync(fd, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** Syncs (what was written since the last sync) and closes the file. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      if (this.unsynced) fsyncSync(this.fd);
      this.unsynced = false;
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
