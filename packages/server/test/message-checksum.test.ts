import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { messageChecksum } from '../src/jetstream/store/sqlite-schema.js';

/** The checksum's definition, which every stored row since the first carries: zlib's CRC-32 of it all. */
function expected(...[seq, time, subject, headers, payload]: Parameters<typeof messageChecksum>) {
  const position = Buffer.alloc(16);
  position.writeDoubleBE(seq, 0);
  position.writeBigInt64BE(time, 8);
  const parts = [position, Buffer.from(subject, 'utf8'), headers ?? new Uint8Array(0), payload];
  return crc32(Buffer.concat(parts));
}

describe('messageChecksum', () => {
  const time = 1_764_000_000_123_456_789n;
  const subjects = ['orders.new', 'ümlaut.x', 'a.😀.b', 'tail.é', '$KV.B.k1', 'x'];
  const headers = [undefined, new Uint8Array(0), Buffer.from('NATS/1.0\r\nX: 1\r\n\r\n')];
  const payloads = [new Uint8Array(0), Uint8Array.of(0, 0xff), Buffer.alloc(3000, 0x5a)];

  it('is zlib CRC-32 over position, UTF-8 subject, headers and payload', () => {
    for (const subject of subjects) {
      for (const header of headers) {
        for (const payload of payloads) {
          for (const seq of [1, 255, 2 ** 40 + 7]) {
            expect(messageChecksum(seq, time, subject, header, payload)).toBe(
              expected(seq, time, subject, header, payload),
            );
          }
        }
      }
    }
  });

  it('changes with any bit of the position or the subject', () => {
    const base = messageChecksum(7, time, 'orders.new', undefined, Uint8Array.of(1));
    expect(messageChecksum(8, time, 'orders.new', undefined, Uint8Array.of(1))).not.toBe(base);
    expect(messageChecksum(7, time + 1n, 'orders.new', undefined, Uint8Array.of(1))).not.toBe(base);
    expect(messageChecksum(7, time, 'orders.nex', undefined, Uint8Array.of(1))).not.toBe(base);
  });
});
