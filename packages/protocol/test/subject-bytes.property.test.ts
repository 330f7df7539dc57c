import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ClientFrame,
  ClientSideParser,
  decodeSubject,
  encodeSubject,
  encodeUtf8,
  FrameWriter,
  type ServerFrame,
  ServerSideParser,
} from '../src/index.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

// Bytes biased towards what makes UTF-8 interesting: ASCII, continuation bytes, lead bytes of
// every length, the bytes around surrogates and the top of the code space, and whole valid
// sequences, so that valid, truncated and invalid sequences all occur often.
const interestingByte = fc.oneof(
  fc.integer({ min: 0, max: 0xff }),
  fc.constantFrom(0x2e, 0x61, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf),
  fc.constantFrom(0xe0, 0xed, 0xee, 0xef, 0xbb, 0xf0, 0xf4, 0xf5, 0xfe, 0xff),
);
const validSequence = fc.string({ unit: 'binary', minLength: 1, maxLength: 2 }).map(encodeUtf8);
const byteString = fc
  .array(
    fc.oneof(
      interestingByte.map((b) => bytes(b)),
      validSequence,
    ),
    { maxLength: 24 },
  )
  .map((parts) => Uint8Array.from(parts.flatMap((part) => [...part])));
const anyBytes = fc.oneof(byteString, fc.uint8Array({ maxLength: 40 }));

describe('decodeSubject / encodeSubject', () => {
  it('give back exactly the bytes for any byte string', () => {
    fc.assert(
      fc.property(anyBytes, (data) => {
        expect(hex(encodeSubject(decodeSubject(data)))).toBe(hex(data));
      }),
      { numRuns: 5000 },
    );
  });

  it('decode distinct byte strings to distinct strings', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyBytes, { selector: hex, maxLength: 50 }), (sample) => {
        expect(new Set(sample.map((data) => decodeSubject(data))).size).toBe(sample.length);
      }),
      { numRuns: 300 },
    );
  });

  it('decode valid UTF-8 as TextDecoder does, and encode it as TextEncoder does', () => {
    const reference = new TextDecoder('utf-8', { ignoreBOM: true });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (text) => {
        const utf8 = encodeUtf8(text);
        expect(decodeSubject(utf8)).toBe(reference.decode(utf8));
        expect(decodeSubject(utf8)).toBe(text);
        expect(hex(encodeSubject(text))).toBe(hex(utf8));
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes a range of a larger array the same as a copy of it', () => {
    fc.assert(
      fc.property(anyBytes, anyBytes, anyBytes, (before, data, after) => {
        const whole = Uint8Array.from([...before, ...data, ...after]);
        const end = before.length + data.length;
        expect(decodeSubject(whole, before.length, end)).toBe(decodeSubject(data));
      }),
    );
  });

  it('escapes each byte of an invalid sequence as U+DC80 + (byte - 0x80)', () => {
    expect(decodeSubject(latin1('\xff.a'))).toBe('\udcff.a');
    expect(decodeSubject(latin1('\xfe.a'))).toBe('\udcfe.a');
    // Overlong, a UTF-8 encoded surrogate, beyond U+10FFFF, truncated, a stray continuation.
    expect(decodeSubject(bytes(0xc0, 0xaf))).toBe('\udcc0\udcaf');
    expect(decodeSubject(bytes(0xed, 0xa0, 0x80))).toBe('\udced\udca0\udc80');
    expect(decodeSubject(bytes(0xf4, 0x90, 0x80, 0x80))).toBe('\udcf4\udc90\udc80\udc80');
    expect(decodeSubject(bytes(0xe2, 0x82, 0x2e, 0x61))).toBe('\udce2\udc82.a');
    expect(decodeSubject(bytes(0x80, 0xc3, 0xa9))).toBe('\udc80é');
  });

  it('keeps a leading byte order mark', () => {
    expect(decodeSubject(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe('\ufeffa');
    expect(decodeSubject(bytes(0xef, 0xbb, 0xbf, 0x61))).not.toBe(decodeSubject(latin1('a')));
  });

  it('does not mistake the low half of a surrogate pair for an escaped byte', () => {
    // U+10080 is the pair D800 DC80; the escape of 0x80 is a lone DC80.
    expect(hex(encodeSubject('\ud800\udc80'))).toBe('f0908280');
    expect(hex(encodeSubject('\ud800\udc80\udc80'))).toBe('f090828080');
  });

  it('writes other lone surrogates as U+FFFD, like TextEncoder', () => {
    expect(hex(encodeSubject('a\ud800'))).toBe(hex(encodeUtf8('a\ud800')));
    expect(hex(encodeSubject('\udc7f'))).toBe('efbfbd');
  });
});

describe('subjects through the parsers and the frame writer', () => {
  it('a server parser keeps subjects that differ only in invalid bytes apart', () => {
    const frames = ServerSideParser.parseAll([
      latin1('SUB \xff.a q\xfe 1\xff\r\nPUB \xfe.a r\xe9 0\r\n\r\n'),
    ]) as ClientFrame[];
    expect(frames).toMatchObject([
      { op: 'SUB', subject: '\udcff.a', queue: 'q\udcfe', sid: '1\udcff' },
      { op: 'PUB', subject: '\udcfe.a', reply: 'r\udce9' },
    ]);
  });

  it('a client parser and the frame writer carry any byte subject through unchanged', () => {
    fc.assert(
      fc.property(anyBytes, anyBytes, (subjectBytes, replyBytes) => {
        // The protocol splits on whitespace: replace those bytes, keep everything else.
        const token = (data: Uint8Array, fallback: number) =>
          Uint8Array.from([fallback, ...data].map((b) => ([9, 10, 13, 32].includes(b) ? 0x2e : b)));
        const subject = token(subjectBytes, 0x73);
        const reply = token(replyBytes, 0x72);
        const line = Uint8Array.from([
          ...latin1('MSG '),
          ...subject,
          ...latin1(' 7 '),
          ...reply,
          ...latin1(' 0\r\n\r\n'),
        ]);
        const [frame] = ClientSideParser.parseAll([line]) as ServerFrame[];
        if (frame?.op !== 'MSG') throw new Error(`expected MSG, got ${JSON.stringify(frame)}`);
        const writer = new FrameWriter();
        writer.msg(frame.subject, frame.sid, frame.reply, frame.payload);
        expect(hex(writer.take())).toBe(hex(line));
      }),
      { numRuns: 2000 },
    );
  });
});
