import { describe, expect, it } from 'vitest';
import { ClientSideParser, decodeSubject, ServerSideParser } from '../src/index.js';
import { cachedSubject } from '../src/subject-cache.js';

// The subject table must never hand out another subject's string: not when subjects collide in
// a set, not when there are more subjects than slots, not across parsers.

const encoder = new TextEncoder();

function subjectsOf(parsed: unknown[]): string[] {
  return parsed.map((frame) => (frame as { subject: string }).subject);
}

describe('message subjects from the subject table', () => {
  it('are right for 10,000 subjects in turn, seen twice, on both sides', () => {
    const subjects = Array.from({ length: 10_000 }, (_, k) => `orders.${k % 7}.${k}`);
    const twice = [...subjects, ...subjects];
    const pubs = encoder.encode(twice.map((s) => `PUB ${s} 0\r\n\r\n`).join(''));
    expect(subjectsOf(ServerSideParser.parseAll([pubs]))).toEqual(twice);
    const msgs = encoder.encode(twice.map((s) => `MSG ${s} 1 0\r\n\r\n`).join(''));
    expect(subjectsOf(ClientSideParser.parseAll([msgs]))).toEqual(twice);
  });

  it('tell apart subjects of 64 and 65 bytes, one byte apart, and invalid UTF-8', () => {
    const long = 'x'.repeat(64);
    const raw = [
      encoder.encode(long),
      encoder.encode(`${long}y`),
      encoder.encode(`${long.slice(1)}y`),
      encoder.encode(long),
      Uint8Array.of(0x61, 0xff, 0x62),
      Uint8Array.of(0x61, 0xfe, 0x62),
      Uint8Array.of(0x61, 0xff, 0x62),
      encoder.encode('a.b'),
      encoder.encode('a.b.'),
    ];
    const stream = raw.flatMap((subject) => [
      ...encoder.encode('PUB '),
      ...subject,
      ...encoder.encode(' 0\r\n\r\n'),
    ]);
    expect(subjectsOf(ServerSideParser.parseAll([Uint8Array.from(stream)]))).toEqual(
      raw.map((subject) => decodeSubject(subject)),
    );
  });

  it('are right when every subject lands in the same set', () => {
    // The hash is the caller's: one hash for all forces them to evict each other.
    const subjects = ['a', 'b', 'c', 'a', 'b', 'b', 'c', 'a', 'ab', 'ba', 'a'];
    const found = subjects.map((subject) => {
      const bytes = encoder.encode(subject);
      return cachedSubject(bytes, 0, bytes.length, 42, true);
    });
    expect(found).toEqual(subjects);
  });

  it('read only the subject in a larger buffer', () => {
    const bytes = encoder.encode('PUB foo.bar 1');
    expect(cachedSubject(bytes, 4, 11, 7, true)).toBe('foo.bar');
    expect(cachedSubject(bytes, 4, 7, 7, true)).toBe('foo');
    expect(cachedSubject(bytes, 8, 11, 7, true)).toBe('bar');
  });
});
