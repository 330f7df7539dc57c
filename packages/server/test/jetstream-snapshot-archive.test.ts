/**
 * The snapshot archive's reader takes the bytes in chunks of any size, as a restore upload
 * brings them, and refuses whatever a snapshot did not write.
 */
import { describe, expect, it } from 'vitest';
import {
  ArchiveError,
  ArchiveReader,
  type ArchiveRecord,
  archiveMagic,
  encodeRecord,
} from '../src/jetstream/snapshot-archive.js';

const records: ArchiveRecord[] = [
  {
    kind: 'meta',
    meta: {
      config: { name: 'S', subjects: ['s.>'] },
      created: 1_764_000_000_123_456_789n,
      lastSeq: 9,
      lastTime: 1_764_000_001_000_000_001n,
    },
  },
  {
    kind: 'message',
    message: {
      subject: 's.a',
      seq: 3,
      time: 1_764_000_000_500_000_000n,
      headers: Buffer.from('NATS/1.0\r\nX-A: 1\r\n\r\n'),
      payload: Buffer.from(Uint8Array.from({ length: 3000 }, (_, i) => i % 256)),
    },
  },
  {
    kind: 'message',
    message: {
      subject: 's.é',
      seq: 8,
      time: 1_764_000_000_900_000_000n,
      headers: undefined,
      payload: Buffer.alloc(0),
    },
  },
  {
    kind: 'consumer',
    consumer: { name: 'D', config: '{"durable_name":"D"}', created: 5n, state: '{"x":1}' },
  },
  { kind: 'end', messages: 2, consumers: 1 },
];
const archive = Buffer.concat([archiveMagic(), ...records.map(encodeRecord)]);

/** Feeds `bytes` cut at `cuts` and returns every record read. */
function read(bytes: Buffer, cuts: number[]): ArchiveRecord[] {
  const reader = new ArchiveReader();
  const out: ArchiveRecord[] = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    out.push(...reader.push(bytes.subarray(from, to)));
    from = to;
  }
  reader.finish();
  return out;
}

/** Plain values: bigints as text, byte buffers as their JSON form. */
const plain = (value: ArchiveRecord[]) =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));

describe('snapshot archive reader', () => {
  it('reads the records back whole, in one piece', () => {
    expect(plain(read(archive, []))).toEqual(plain(records));
  });

  it('reads the same records fed one byte at a time', () => {
    const cuts = Array.from({ length: archive.length - 1 }, (_, i) => i + 1);
    expect(plain(read(archive, cuts))).toEqual(plain(records));
  });

  it('reads the same records at every two-way cut', () => {
    for (let cut = 1; cut < archive.length; cut += 97) {
      expect(plain(read(archive, [cut]))).toEqual(plain(records));
    }
  });

  it.each([
    [
      'another format',
      Buffer.from('PK\x03\x04 a zip file'),
      'not a stream snapshot (unknown format)',
    ],
    [
      'a truncated archive',
      archive.subarray(0, archive.length - 10),
      'archive truncated: it has no end record',
    ],
    [
      'data after the end',
      Buffer.concat([archive, Buffer.from('x')]),
      'data after the end of the archive',
    ],
    [
      'records without metadata',
      Buffer.concat([archiveMagic(), encodeRecord(records[1]!)]),
      'archive does not start with its metadata',
    ],
    [
      'a missing message',
      Buffer.concat([archiveMagic(), ...[0, 1, 3, 4].map((i) => encodeRecord(records[i]!))]),
      'archive holds 1 messages and 1 consumers, its end record says 2 and 1',
    ],
    [
      'a huge record length',
      Buffer.concat([archiveMagic(), Buffer.from([2, 0xff, 0xff, 0xff, 0xff])]),
      'record of 4294967295 bytes is too large',
    ],
  ])('refuses %s', (_what, bytes, message) => {
    expect(() => read(bytes, [])).toThrow(new ArchiveError(message));
  });

  it('finds any single flipped bit', () => {
    for (let at = archiveMagic().length; at < archive.length; at += 13) {
      const damaged = Buffer.from(archive);
      damaged[at]! ^= 1 << (at % 8);
      expect(() => read(damaged, []), `bit flipped at byte ${at}`).toThrow(ArchiveError);
    }
  });
});
