/**
 * The snapshot archive's reader takes the bytes in chunks of any size, as a restore upload
 * brings them, and refuses whatever a snapshot did not write.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ArchiveError,
  ArchiveReader,
  type ArchiveRecord,
  archiveMagic,
  encodeDatabase,
  encodeMessages,
  encodeRecord,
} from '../src/jetstream/snapshot/snapshot-archive.js';
import type { StoredMessage } from '../src/jetstream/store/message-store.js';

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
  { kind: 'end', messages: 2, consumers: 1, database: 0 },
];
type Encodable = Exclude<ArchiveRecord, { kind: 'message' } | { kind: 'database' }>;

/** The records as a snapshot writes them: the messages in `messages` batches. */
function encode(list: ArchiveRecord[]): Buffer[] {
  const messages = list.flatMap((r) => (r.kind === 'message' ? [r.message] : []));
  const others = list.filter((r): r is Encodable => r.kind !== 'message');
  const [first, ...rest] = others.map(encodeRecord);
  return [first!, ...encodeMessages(messages), ...rest];
}

const archive = Buffer.concat([archiveMagic(), ...encode(records)]);

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
      Buffer.concat([
        archiveMagic(),
        ...encodeMessages([(records[1] as { message: StoredMessage }).message]),
      ]),
      'archive does not start with its metadata',
    ],
    [
      'a missing message',
      Buffer.concat([archiveMagic(), ...encode([0, 1, 3, 4].map((i) => records[i]!))]),
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

  it('puts many messages in one record, and starts another past 128 KiB', () => {
    const message = (seq: number): StoredMessage => ({
      subject: 's.b',
      seq,
      time: BigInt(seq),
      headers: undefined,
      payload: Buffer.alloc(1000, seq),
    });
    const batches = [...encodeMessages(Array.from({ length: 200 }, (_, i) => message(i + 1)))];
    expect(batches).toHaveLength(2);
    const meta = encodeRecord(records[0] as Encodable);
    const end = encodeRecord({ kind: 'end', messages: 200, consumers: 0, database: 0 });
    const read200 = read(Buffer.concat([archiveMagic(), meta, ...batches, end]), [70_000]);
    expect(plain(read200.slice(1, -1))).toEqual(
      plain(Array.from({ length: 200 }, (_, i) => ({ kind: 'message', message: message(i + 1) }))),
    );
  });

  it('reads the message records of archives written before batches', () => {
    // kind 2 | length | seq 7 | time 9 | subject length 3 | headers length 0 | "s.x" | "hi" | CRC
    const body = Buffer.concat([
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 9, 0, 3, 0, 0, 0, 0]),
      Buffer.from('s.xhi'),
    ]);
    const head = Buffer.from([2, 0, 0, 0, body.length]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head, body])));
    const meta = encodeRecord(records[0] as Encodable);
    // An end record of those days: no database count.
    const endBody = Buffer.from('{"messages":1,"consumers":0}');
    const endHead = Buffer.from([4, 0, 0, 0, endBody.length]);
    const endCrc = Buffer.alloc(4);
    endCrc.writeUInt32BE(crc32(Buffer.concat([endHead, endBody])));
    const end = Buffer.concat([endHead, endBody, endCrc]);
    const old = read(Buffer.concat([archiveMagic(), meta, head, body, crc, end]), []);
    expect(plain([old[1]!])).toEqual(
      plain([
        {
          kind: 'message',
          message: {
            seq: 7,
            time: 9n,
            subject: 's.x',
            headers: undefined,
            payload: Buffer.from('hi'),
          },
        },
      ]),
    );
  });

  it("carries a file stream's database in pieces, counted by the end record", () => {
    const file = Buffer.from(Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
    let at = 0;
    const readInto = (target: Buffer) => {
      const read = file.copy(target, 0, at, Math.min(at + target.length, file.length));
      at += read;
      return read;
    };
    const body = [...encodeDatabase(readInto, 131_072)];
    expect(body.map((record) => record.length)).toEqual([131_081, 131_081, 37_865]);
    const meta = encodeRecord(records[0] as Encodable);
    const end = encodeRecord({ kind: 'end', messages: 0, consumers: 0, database: file.length });
    const got = read(Buffer.concat([archiveMagic(), meta, ...body, end]), [1000, 200_000]);
    const bytes = got.flatMap((r) => (r.kind === 'database' ? [r.bytes] : []));
    expect(Buffer.concat(bytes).equals(file)).toBe(true);
    expect(got.at(-1)).toEqual({ kind: 'end', messages: 0, consumers: 0, database: file.length });
    const short = Buffer.concat([archiveMagic(), meta, body[0]!, body[2]!, end]);
    expect(() => read(short, [])).toThrow(
      new ArchiveError(
        `archive holds ${file.length - 131_072} bytes of database, its end record says ${file.length}`,
      ),
    );
  });

  it('finds any single flipped bit', () => {
    for (let at = archiveMagic().length; at < archive.length; at += 13) {
      const damaged = Buffer.from(archive);
      damaged[at]! ^= 1 << (at % 8);
      expect(() => read(damaged, []), `bit flipped at byte ${at}`).toThrow(ArchiveError);
    }
  });
});
