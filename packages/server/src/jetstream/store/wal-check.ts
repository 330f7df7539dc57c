/**
 * A stream's WAL read frame by frame before SQLite opens it, because SQLite itself says nothing
 * of a damaged one: it takes the frames up to the first whose checksum or salt does not check
 * out and silently drops that frame and every one after it, committed messages included.
 * Frames follow SQLite's WAL format (a 32-byte header with the page size, salts and a checksum,
 * then per frame a 24-byte header and one page, each checksummed over everything before it).
 * What ends the frames normally: zeros (wal-file.ts fills ahead of SQLite's writes), a frame of
 * an earlier generation (other salts), or the file's end at a frame's boundary. A damaged WAL is
 * still read as SQLite reads it (the frames before the damage) when the stream is rebuilt.
 */
import { readFileSync } from 'node:fs';

const HEADER = 32;
const FRAME_HEADER = 24;

/**
 * The damage in the WAL at `path` (of a database whose pages are `pageSize` bytes), in words, if
 * any: frames SQLite would drop (whose pages can still be read for their row ids), or a file
 * ending inside a frame (what was past the cut is gone).
 */
export function walDamage(path: string, pageSize: number): string | undefined {
  const wal = readFileSync(path);
  if (wal.length === 0 || isZero(wal)) return undefined;
  if (wal.length < HEADER) return `the WAL is cut short at ${wal.length} bytes`;
  const magic = wal.readUInt32BE(0);
  const bigEndian = (magic & 1) === 1;
  const headerSum = checksum(wal.subarray(0, 24), [0, 0], bigEndian);
  const headerOk =
    (magic & ~1) === 0x377f0682 &&
    wal.readUInt32BE(8) === pageSize &&
    headerSum[0] === wal.readUInt32BE(24) &&
    headerSum[1] === wal.readUInt32BE(28);
  const frameSize = FRAME_HEADER + pageSize;
  if (!headerOk) {
    return 'its WAL header is damaged, so SQLite ignores every frame';
  }
  const salts = wal.subarray(16, 24);
  let sum = headerSum;
  for (let at = HEADER, frame = 0; at < wal.length; at += frameSize, frame++) {
    const bytes = wal.subarray(at, at + frameSize);
    if (isZero(bytes)) return undefined;
    if (bytes.length < frameSize) {
      return `the WAL is cut short inside frame ${frame}`;
    }
    if (!bytes.subarray(8, 16).equals(salts)) {
      // An earlier generation's frame ends this one's, unless this one's frames go on past it.
      return laterFrame(wal, at + frameSize, frameSize, salts)
        ? `frame ${frame} of the WAL is damaged (its salt)`
        : undefined;
    }
    const next = checksum(
      bytes.subarray(FRAME_HEADER),
      checksum(bytes.subarray(0, 8), sum, bigEndian),
      bigEndian,
    );
    if (next[0] !== bytes.readUInt32BE(16) || next[1] !== bytes.readUInt32BE(20)) {
      return `frame ${frame} of the WAL fails its checksum`;
    }
    sum = next;
  }
  return undefined;
}

/** Whether a frame with this generation's salts follows `from`. */
function laterFrame(wal: Buffer, from: number, frameSize: number, salts: Buffer): boolean {
  for (let at = from; at + frameSize <= wal.length; at += frameSize) {
    if (wal.subarray(at + 8, at + 16).equals(salts)) return true;
  }
  return false;
}

/** SQLite's WAL checksum: pairs of 32-bit words summed into two running totals. */
function checksum(bytes: Buffer, [start0, start1]: number[], bigEndian: boolean): [number, number] {
  let s0 = start0!;
  let s1 = start1!;
  for (let i = 0; i + 8 <= bytes.length; i += 8) {
    const x0 = bigEndian ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i);
    const x1 = bigEndian ? bytes.readUInt32BE(i + 4) : bytes.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

function isZero(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0) return false;
  return true;
}
