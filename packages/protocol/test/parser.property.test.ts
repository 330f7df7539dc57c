import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ClientFrame,
  ClientSideParser,
  encodeUtf8,
  FrameWriter,
  type ParserOptions,
  ProtocolError,
  type ServerFrame,
  ServerSideParser,
} from '../src/index.js';

// ---- generators -------------------------------------------------------------------------

/** Subject/sid/queue/reply tokens: no whitespace, some non-ASCII, some wildcard characters. */
const token = fc
  .array(fc.constantFrom(...Array.from('abcxyzABC0189._-*>$=üé日本😀')), {
    minLength: 1,
    maxLength: 24,
  })
  .map((chars) => chars.join(''));
const optionalToken = fc.option(token, { nil: undefined });

/** Deterministic bytes of any size, with CRLF and protocol-looking text sprinkled in. */
function patterned(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let state = seed | 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  const marker = encodeUtf8('\r\nMSG a 1 2\r\n');
  for (let i = (seed >>> 0) % 97; i + marker.length <= size; i += 4093) bytes.set(marker, i);
  return bytes;
}

const payload = fc.oneof(
  { weight: 12, arbitrary: fc.uint8Array({ maxLength: 48 }) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('\r\n', '\r\n\r\n', 'PUB foo 1\r\n', '\n', '\r', 'PING\r\n')
      .map((s) => encodeUtf8(s)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ size: fc.integer({ min: 0, max: (1 << 20) - 512 }), seed: fc.integer() })
      .map(({ size, seed }) => patterned(size, seed)),
  },
);
const smallPayload = fc.uint8Array({ maxLength: 40 });

/** HPUB/HMSG header blocks; the parser treats them as opaque bytes. */
const headerBlock = fc.option(
  fc.oneof(
    fc
      .constantFrom('NATS/1.0\r\n\r\n', 'NATS/1.0 503\r\n\r\n', 'NATS/1.0\r\nK: v\r\n\r\n')
      .map((s) => encodeUtf8(s)),
    fc.uint8Array({ minLength: 1, maxLength: 200 }),
  ),
  { nil: undefined },
);

const text = fc.string({ unit: 'binary', maxLength: 40 });
const json = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.boolean(), fc.integer()), {
    maxKeys: 4,
  })
  .map((object) => JSON.stringify(object));
const size = fc.integer({ min: 0, max: 999_999_999 });
const bare = fc.constantFrom<{ op: 'PING' } | { op: 'PONG' } | { op: 'OK' }>(
  { op: 'PING' },
  { op: 'PONG' },
  { op: 'OK' },
);

function clientFrame(body: fc.Arbitrary<Uint8Array>): fc.Arbitrary<ClientFrame> {
  return fc.oneof(
    json.map((j) => ({ op: 'CONNECT' as const, json: j })),
    fc
      .record({
        op: fc.constant('PUB' as const),
        subject: token,
        reply: optionalToken,
        headers: headerBlock,
        payload: body,
      })
      // The writer sends HPUB exactly when there is a non-empty header block.
      .map((pub) => ({ ...pub, hpub: pub.headers !== undefined })),
    fc.record({
      op: fc.constant('SUB' as const),
      subject: token,
      queue: optionalToken,
      sid: token,
    }),
    fc.record({
      op: fc.constant('UNSUB' as const),
      sid: token,
      max: fc.option(size, { nil: undefined }),
    }),
    json.map((j) => ({ op: 'INFO' as const, json: j })),
    bare,
  );
}

function serverFrame(body: fc.Arbitrary<Uint8Array>): fc.Arbitrary<ServerFrame> {
  return fc.oneof(
    json.map((j) => ({ op: 'INFO' as const, json: j })),
    fc.record({
      op: fc.constant('MSG' as const),
      subject: token,
      sid: token,
      reply: optionalToken,
      headers: headerBlock,
      payload: body,
    }),
    fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .filter((s) => !/[\r\n]/.test(s))
      .map((message) => ({ op: 'ERR' as const, message })),
    bare,
  );
}

function writeClientFrame(writer: FrameWriter, frame: ClientFrame): void {
  if (frame.op === 'CONNECT') writer.connect(JSON.parse(frame.json));
  else if (frame.op === 'PUB') writer.pub(frame.subject, frame.reply, frame.payload, frame.headers);
  else if (frame.op === 'SUB') writer.sub(frame.subject, frame.sid, frame.queue);
  else if (frame.op === 'UNSUB') writer.unsub(frame.sid, frame.max);
  else if (frame.op === 'INFO') writer.info(frame.json);
  else writeBare(writer, frame.op);
}

function writeServerFrame(writer: FrameWriter, frame: ServerFrame): void {
  if (frame.op === 'INFO') writer.info(frame.json);
  else if (frame.op === 'MSG') {
    writer.msg(frame.subject, frame.sid, frame.reply, frame.payload, frame.headers);
  } else if (frame.op === 'ERR') writer.err(frame.message);
  else writeBare(writer, frame.op);
}

function writeBare(writer: FrameWriter, op: 'PING' | 'PONG' | 'OK'): void {
  if (op === 'PING') writer.ping();
  else if (op === 'PONG') writer.pong();
  else writer.ok();
}

function encode<F>(frames: F[], write: (writer: FrameWriter, frame: F) => void): Uint8Array {
  const writer = new FrameWriter(256);
  for (const frame of frames) write(writer, frame);
  return writer.take();
}

// ---- running the parsers ------------------------------------------------------------------

type Side = 'server' | 'client';
type Outcome = unknown[];

// Deep-equality on megabyte Uint8Arrays is slow, so byte strings are compared as text, one char
// per byte (windows-1252 decoding maps the 256 byte values to 256 distinct characters).
const byteText = new TextDecoder('windows-1252');

/** A frame as compared in these tests: payload and headers as one-char-per-byte strings. */
function comparable(frame: ClientFrame | ServerFrame): unknown {
  if (frame.op !== 'PUB' && frame.op !== 'MSG') return frame;
  return {
    ...frame,
    payload: byteText.decode(frame.payload),
    headers: frame.headers && byteText.decode(frame.headers),
  };
}

/** Cuts `bytes` at the given offsets (taken modulo its length). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => (bytes.length ? o % bytes.length : 0)))].sort(
    (a, b) => a - b,
  );
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  return chunks;
}

const oneByteAtATime = (bytes: Uint8Array) =>
  Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));

/** Parses the chunks, checking after each one that the parser holds no more than its limits allow. */
function run(side: Side, chunks: Uint8Array[], options: ParserOptions = {}): Outcome {
  const out: Outcome = [];
  const sink = {
    frame(frame: ClientFrame | ServerFrame) {
      out.push(comparable(frame));
    },
    error(error: ProtocolError) {
      expect(error).toBeInstanceOf(ProtocolError);
      out.push({ error: error.code, text: error.serverErrorText });
    },
  };
  const parser = side === 'server' ? new ServerSideParser(sink) : new ClientSideParser(sink);
  if (options.maxControlLine !== undefined) parser.maxControlLine = options.maxControlLine;
  if (options.maxPayload !== undefined) parser.maxPayload = options.maxPayload;
  const bound = parser.maxControlLine + parser.maxPayload + 16;
  for (const chunk of chunks) {
    parser.parse(chunk);
    expect(parser.bufferedBytes).toBeLessThanOrEqual(bound);
  }
  const errors = out.filter((r) => typeof r === 'object' && r !== null && 'error' in r);
  expect(errors.length).toBeLessThanOrEqual(1);
  if (errors.length === 1) expect(out.at(-1)).toBe(errors[0]);
  return out;
}

const offsets = fc.array(fc.nat(), { maxLength: 12 });

// ---- properties ---------------------------------------------------------------------------

describe('encode then parse', () => {
  function givesBackEveryFrame<F extends ClientFrame | ServerFrame>(
    side: Side,
    frames: fc.Arbitrary<F>,
    write: (writer: FrameWriter, frame: F) => void,
  ) {
    fc.assert(
      fc.property(fc.array(frames, { maxLength: 8 }), offsets, (sent, cuts) => {
        const bytes = encode(sent, write);
        const expected = sent.map(comparable);
        expect(run(side, [bytes])).toEqual(expected);
        expect(run(side, cut(bytes, cuts))).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  }

  it('gives back every frame a client sends', () => {
    givesBackEveryFrame('server', clientFrame(payload), writeClientFrame);
  });

  it('gives back every frame a server sends', () => {
    givesBackEveryFrame('client', serverFrame(payload), writeServerFrame);
  });
});

describe('chunking does not matter', () => {
  it('parses a stream the same whole, cut anywhere, and one byte at a time', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(clientFrame(smallPayload), { maxLength: 6 }).map((frames) => ({
            side: 'server' as const,
            bytes: encode(frames, writeClientFrame),
          })),
          fc.array(serverFrame(smallPayload), { maxLength: 6 }).map((frames) => ({
            side: 'client' as const,
            bytes: encode(frames, writeServerFrame),
          })),
        ),
        offsets,
        ({ side, bytes }, cuts) => {
          const whole = run(side, [bytes]);
          expect(run(side, cut(bytes, cuts))).toEqual(whole);
          expect(run(side, oneByteAtATime(bytes))).toEqual(whole);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('hostile input', () => {
  /** Bytes that look a lot like the protocol: verbs, digits, blanks, CR, LF. */
  const protocolish = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'PUB ',
          'HPUB ',
          'MSG ',
          'HMSG ',
          'SUB ',
          'UNSUB ',
          'PING',
          'PONG',
          '+OK',
          '-ERR ',
          'CONNECT ',
          'INFO ',
          'foo ',
          ' ',
          '\t',
          '\r\n',
          '\n',
          '\r',
          '0',
          '1',
          '12 ',
          '99999',
          '-1',
        ),
        fc.string({ unit: 'binary', maxLength: 3 }),
      ),
      { maxLength: 40 },
    )
    .map((parts) => encodeUtf8(parts.join('')));

  /** A valid stream with bytes flipped, dropped or inserted. */
  const mutated = fc
    .record({
      side: fc.constantFrom<Side>('server', 'client'),
      frames: fc.array(fc.oneof(clientFrame(smallPayload), serverFrame(smallPayload)), {
        maxLength: 5,
      }),
      edits: fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: -2, max: 255 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
    })
    .map(({ side, frames, edits }) => {
      const writer = new FrameWriter();
      for (const frame of frames) {
        if (frame.op === 'MSG' || frame.op === 'ERR') writeServerFrame(writer, frame);
        else writeClientFrame(writer, frame as ClientFrame);
      }
      const bytes = Array.from(writer.take());
      for (const { at, byte } of edits) {
        const i = bytes.length ? at % bytes.length : 0;
        if (byte === -1) bytes.splice(i, 1);
        else if (byte === -2) bytes.splice(i, 0, 0x0a);
        else bytes[i] = byte;
      }
      return { side, bytes: Uint8Array.from(bytes) };
    });

  const limits = fc.record({
    maxControlLine: fc.integer({ min: 1, max: 64 }),
    maxPayload: fc.integer({ min: 0, max: 64 }),
  });

  it('yields only frames or one final ProtocolError, in bounded memory, however cut', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          mutated,
          fc.record({ side: fc.constantFrom<Side>('server', 'client'), bytes: protocolish }),
          fc.record({ side: fc.constantFrom<Side>('server', 'client'), bytes: fc.uint8Array() }),
        ),
        fc.option(limits, { nil: undefined }),
        offsets,
        ({ side, bytes }, options, cuts) => {
          const whole = run(side, [bytes], options);
          expect(run(side, cut(bytes, cuts), options)).toEqual(whole);
          expect(run(side, oneByteAtATime(bytes), options)).toEqual(whole);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('fails an endless control line or an oversized payload before holding more than its limits', () => {
    const limits = { maxControlLine: 100, maxPayload: 1000 };
    // 5,000 bytes, far past maxControlLine + maxPayload: a parser that buffered instead of
    // failing would break run()'s bufferedBytes bound as well as the expected error.
    const endless = 'a'.repeat(5000);
    const cases: Array<[Side, string, string[]]> = [
      ['server', 'PUB ', ['MAX_CONTROL_LINE']],
      ['server', 'SUB  ', ['MAX_CONTROL_LINE']],
      ['server', 'CONNECT ', ['MAX_CONTROL_LINE']],
      ['client', 'MSG ', ['MAX_CONTROL_LINE']],
      ['client', 'INFO ', ['MAX_CONTROL_LINE']],
      // Not an op of that side: refused on its verb, long before the limit.
      ['client', 'CONNECT ', ['UNKNOWN_OPERATION']],
      ['server', 'MSG ', ['UNKNOWN_OPERATION']],
      // A bare op skips what follows it without holding it.
      ['server', 'PING', []],
      ['client', 'PING', []],
    ];
    for (const [side, start, errors] of cases) {
      const expected = errors.map((error) => expect.objectContaining({ error }));
      const line = encodeUtf8(start + endless);
      const what = `${side} ${JSON.stringify(start)}`;
      // In 100-byte pieces (the partial-line path) and in one chunk with its CRLF (whole line).
      const pieces = Array.from({ length: Math.ceil(line.length / 100) }, (_, i) =>
        line.subarray(i * 100, (i + 1) * 100),
      );
      expect(run(side, pieces, limits), `${what} in pieces`).toEqual(expected);
      if (start !== 'PING') {
        const whole = run(side, [encodeUtf8(`${start}${endless}\r\n`)], limits);
        expect(whole, `${what} as one line`).toEqual(expected);
      }
    }
    const body = Array.from({ length: 50 }, () => new Uint8Array(100));
    for (const [side, line] of [
      ['server', 'PUB a 5000\r\n'],
      ['server', 'HPUB a 12 5000\r\n'],
      ['client', 'MSG a 1 5000\r\n'],
      ['client', 'HMSG a 1 12 5000\r\n'],
    ] as const) {
      const out = run(side, [encodeUtf8(line), ...body], limits);
      expect(out, `${side} ${line}`).toEqual([expect.objectContaining({ error: 'MAX_PAYLOAD' })]);
    }
  });
});
