/** A small seeded generator (mulberry32), so a failing run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const encoder = new TextEncoder();
const hpub = (subject: string, headers: string, body: string) => {
  const head = `NATS/1.0\r\n${headers}\r\n`;
  return `HPUB ${subject} ${head.length} ${head.length + body.length}\r\n${head}${body}\r\n`;
};

/** Well-formed client frames, the raw material that mutations start from. */
const templates: readonly string[] = [
  'CONNECT {"verbose":false,"pedantic":false,"headers":true,"no_responders":true,"protocol":1}\r\n',
  'CONNECT {"verbose":true,"pedantic":true,"echo":false}\r\n',
  'CONNECT {}\r\n',
  'PING\r\n',
  'PONG\r\n',
  'SUB foo 1\r\n',
  'SUB > 2\r\n',
  'SUB svc.* workers 3\r\n',
  'UNSUB 1\r\n',
  'UNSUB 2 5\r\n',
  'PUB foo 5\r\nhello\r\n',
  'PUB foo _INBOX.x 0\r\n\r\n',
  'PUB svc.echo _INBOX.hostile 4\r\nboom\r\n',
  hpub('foo', 'A: b\r\n', 'hello'),
  hpub('foo', 'X: y\r\nX: z\r\n', ''),
  'MSG foo 1 5\r\nhello\r\n',
  "-ERR 'nope'\r\n",
  '+OK\r\n',
  'INFO {}\r\n',
];

type Mutation = (bytes: Uint8Array, rand: () => number) => Uint8Array;
const pick = <T>(items: readonly T[], rand: () => number): T =>
  items[Math.floor(rand() * items.length)]!;
const randomBytes = (length: number, rand: () => number) =>
  Uint8Array.from({ length }, () => Math.floor(rand() * 256));
const splice = (bytes: Uint8Array, at: number, remove: number, insert: Uint8Array) => {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
};

const mutations: readonly Mutation[] = [
  (b, r) => {
    const out = b.slice();
    out[Math.floor(r() * out.length)] = Math.floor(r() * 256);
    return out;
  },
  (b, r) => b.subarray(0, Math.floor(r() * b.length)),
  (b, r) => {
    const at = Math.floor(r() * b.length);
    return splice(b, at, Math.floor(r() * (b.length - at)), new Uint8Array());
  },
  (b, r) => splice(b, Math.floor(r() * b.length), 0, randomBytes(1 + Math.floor(r() * 16), r)),
  (b, r) => splice(b, Math.floor(r() * b.length), 0, encoder.encode('\r\n')),
  (b, r) => {
    const at = Math.floor(r() * b.length);
    return splice(b, at, 0, b.subarray(at, at + Math.floor(r() * 32)));
  },
  // Sizes that lie: huge, negative, non-numeric.
  (b, r) =>
    encoder.encode(
      new TextDecoder()
        .decode(b)
        .replace(/\b\d+\b/, pick(['99999999999', '-1', '2147483648', 'x', ''], r)),
    ),
];

/** Frames that are not the shape of any mutation: long lines, floods, binary junk. */
const specials: readonly ((rand: () => number) => Uint8Array)[] = [
  (r) => randomBytes(1 + Math.floor(r() * 4096), r),
  (r) => encoder.encode(`PUB ${'a'.repeat(5000 + Math.floor(r() * 5000))} 1\r\nx\r\n`),
  () => encoder.encode(`PUB big 100000\r\n${'z'.repeat(100000)}\r\n`),
  () => encoder.encode('CONNECT {"verbose":'),
  () => encoder.encode('CONNECT {"verbose":false}\r\nSUB > 1\r\n'),
  () => encoder.encode(`SUB ${'x.'.repeat(200)}y 7\r\n`),
  () => new Uint8Array(512),
  () => encoder.encode('\u00ff\u00feSUB \u2603 1\r\n'),
];

/** One random frame: a mutated template, an intact one, or something special. */
export function hostileFrame(rand: () => number): Uint8Array {
  const roll = rand();
  if (roll < 0.15) return encoder.encode(pick(templates, rand));
  if (roll < 0.3) return pick(specials, rand)(rand);
  let bytes: Uint8Array = encoder.encode(pick(templates, rand));
  const rounds = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < rounds; i++) bytes = pick(mutations, rand)(bytes, rand);
  return bytes;
}

/** A burst that makes the server fan out to everything subscribed to `>`. */
export function floodFrames(count: number, size: number): Uint8Array {
  const body = 'f'.repeat(size);
  return encoder.encode(
    'CONNECT {"verbose":false,"pedantic":false}\r\nSUB > 1\r\n' +
      `PUB flood.x ${size}\r\n${body}\r\n`.repeat(count),
  );
}
