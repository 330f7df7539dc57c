/**
 * Seeded hostile input for the client protocol: valid frames (CONNECT, PUB, HPUB, SUB, UNSUB,
 * PING) mutated byte by byte, random bytes, absurd sizes, the whole split at random points. One
 * seed gives one case, so a failure replays from the seed the campaign printed.
 */
import { seeded } from '../damage/damage.js';

type Random = (n: number) => number;

/** Subjects the fuzz publishes on stay under `fuzz.`, away from the watchdog client's own. */
const validFrames: ReadonlyArray<(r: Random) => string> = [
  () => 'CONNECT {"verbose":false,"pedantic":false,"protocol":1,"headers":true}\r\n',
  (r) => `CONNECT {"verbose":${r(2) === 0},"pedantic":${r(2) === 0},"echo":true,"name":"fz"}\r\n`,
  (r) => {
    const body = 'x'.repeat(r(64));
    return `PUB fuzz.${r(10)} ${body.length}\r\n${body}\r\n`;
  },
  (r) => `PUB fuzz.a _INBOX.fz.${r(100)} 5\r\nhello\r\n`,
  (r) => {
    const headers = `NATS/1.0\r\nK-${r(9)}: v\r\n\r\n`;
    const body = 'y'.repeat(r(32));
    return `HPUB fuzz.h ${headers.length} ${headers.length + body.length}\r\n${headers}${body}\r\n`;
  },
  (r) => `SUB fuzz.${['*', '>', 'a', 'a.*.b'][r(4)]} ${r(50)}\r\n`,
  (r) => `SUB fuzz.q q${r(3)} ${r(50)}\r\n`,
  (r) => `UNSUB ${r(50)}${r(2) === 0 ? ` ${r(5)}` : ''}\r\n`,
  () => 'PING\r\n',
  () => 'PONG\r\n',
];

/** Frames that are wrong on purpose, beyond what byte mutations reach. */
const hostileFrames: ReadonlyArray<(r: Random) => string> = [
  () => 'PUB fuzz.big 99999999999999999999\r\n',
  () => `PUB fuzz.big ${2 ** 31}\r\n`,
  () => 'PUB fuzz.neg -1\r\n',
  () => 'HPUB fuzz.h 50 10\r\nNATS/1.0\r\n\r\n',
  () => 'HPUB fuzz.h 99999999999 99999999999\r\n',
  (r) => `PUB ${'a.'.repeat(r(5000))}b 0\r\n\r\n`,
  (r) => `SUB ${'t'.repeat(r(70_000))} 1\r\n`,
  () => `CONNECT ${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}\r\n`,
  () => 'CONNECT {"verbose":false\r\n',
  () => 'CONNECT []\r\n',
  () => 'CONNECT {"protocol":"x","headers":99,"name":{"a":[1,2]},"lang":null}\r\n',
  (r) => `PUB fuzz.ctl\u0000\u0001\u007f ${r(3)}\r\nab\r\n`,
  (r) => `UNSUB ${'9'.repeat(r(400))}\r\n`,
  () => `${'PING'.repeat(20_000)}\r\n`,
  () => 'MSG fuzz.a 1 2\r\nhi\r\n',
  () => 'INFO {}\r\n',
  () => '+OK\r\n-ERR x\r\n',
  (r) => `\r\n`.repeat(r(100)),
];

/** A case: the bytes to write, already cut into the writes that carry them. */
export interface ProtocolCase {
  readonly seed: number;
  readonly writes: readonly Uint8Array[];
}

export function protocolCase(seed: number): ProtocolCase {
  const r = seeded(seed);
  const parts: Buffer[] = [];
  // Most cases open with a valid CONNECT so the fuzz reaches past the handshake.
  if (r(4) !== 0) parts.push(Buffer.from(validFrames[0](r)));
  const frames = 1 + r(12);
  for (let i = 0; i < frames; i++) {
    const kind = r(10);
    if (kind < 5) parts.push(mutate(Buffer.from(pick(validFrames, r)(r), 'latin1'), r));
    else if (kind < 7) parts.push(Buffer.from(pick(validFrames, r)(r), 'latin1'));
    else if (kind < 9) parts.push(Buffer.from(pick(hostileFrames, r)(r), 'latin1'));
    else parts.push(randomBuffer(r, 1 + r(r(2) === 0 ? 64 : 4096)));
  }
  return { seed, writes: split(Buffer.concat(parts), r) };
}

function pick<T>(list: readonly T[], r: Random): T {
  return list[r(list.length)];
}

function randomBuffer(r: Random, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = r(256);
  return bytes;
}

/** A few byte-level edits: flips, overwrites with protocol-significant bytes, inserts, deletes. */
function mutate(frame: Buffer, r: Random): Buffer {
  let bytes = frame;
  const edits = 1 + r(4);
  const significant = [
    0x20, 0x09, 0x0d, 0x0a, 0x00, 0x2e, 0x2a, 0x3e, 0x7b, 0x22, 0xff, 0x30, 0x39,
  ];
  for (let e = 0; e < edits && bytes.length > 0; e++) {
    const at = r(bytes.length);
    switch (r(5)) {
      case 0:
        bytes[at] ^= 1 << r(8);
        break;
      case 1:
        bytes[at] = significant[r(significant.length)];
        break;
      case 2:
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          randomBuffer(r, 1 + r(8)),
          bytes.subarray(at),
        ]);
        break;
      case 3:
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1 + r(8))]);
        break;
      default:
        // A size field, or anything numeric, made enormous.
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          Buffer.from('9'.repeat(1 + r(25))),
          bytes.subarray(at),
        ]);
    }
  }
  return bytes;
}

/** Cuts the bytes into writes at random points (often single bytes at the edges of frames). */
function split(bytes: Buffer, r: Random): Uint8Array[] {
  const writes: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = r(3) === 0 ? 1 + r(4) : 1 + r(bytes.length - at);
    writes.push(bytes.subarray(at, at + size));
    at += size;
  }
  return writes;
}
