/**
 * The snappy framing format (github.com/google/snappy framing_format.txt), written with
 * uncompressed chunks only: a valid stream for every snappy or s2 reader, which is what a trace
 * event's `Accept-Encoding: snappy` asks for, without a compressor.
 */
import { reflectedCrcTable } from './crc-table.js';

const STREAM_IDENTIFIER = Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
const UNCOMPRESSED_CHUNK = 0x01;
/** The most data one chunk may carry. */
const MAX_CHUNK_DATA = 65_536;

export function snappyFramed(data: Uint8Array): Buffer {
  const parts: Buffer[] = [STREAM_IDENTIFIER];
  for (let start = 0; start < data.length; start += MAX_CHUNK_DATA) {
    const chunk = data.subarray(start, start + MAX_CHUNK_DATA);
    const header = Buffer.alloc(8);
    header[0] = UNCOMPRESSED_CHUNK;
    header.writeUIntLE(chunk.length + 4, 1, 3);
    header.writeUInt32LE(maskedCrc(chunk), 4);
    parts.push(header, Buffer.from(chunk));
  }
  return Buffer.concat(parts);
}

/** CRC-32C of the data, masked as the format says (rotated right by 15, plus a constant). */
function maskedCrc(data: Uint8Array): number {
  const crc = crc32c(data);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

let table: Uint32Array | undefined;

/** CRC-32C (Castagnoli, reflected polynomial 0x82f63b78). */
function crc32c(data: Uint8Array): number {
  table ??= reflectedCrcTable(0x82f63b78);
  let crc = 0xffffffff;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
