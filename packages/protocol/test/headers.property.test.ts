import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headers, MsgHdrsImpl } from '../src/headers.js';

const keyChar = fc
  .integer({ min: 33, max: 126 })
  .filter((c) => c !== 0x3a)
  .map((c) => String.fromCharCode(c));
const key = fc.string({ unit: keyChar, minLength: 1, maxLength: 16 });
// Printable text including non-ASCII; values are stored trimmed, so generate them trimmed.
const value = fc
  .string({ unit: 'grapheme', maxLength: 24 })
  .map((s) => s.replace(/[\r\n]/g, '').trim());
const entries = fc.array(fc.tuple(key, value), { maxLength: 12 });
const status = fc.oneof(
  fc.constant<[number, string]>([0, '']),
  fc.tuple(
    fc.integer({ min: 100, max: 999 }),
    fc
      .string({ unit: 'grapheme-ascii', maxLength: 20 })
      .map((s) => s.replace(/[\r\n]/g, '').trim()),
  ),
);

function build(code: number, description: string, pairs: [string, string][]): MsgHdrsImpl {
  const h = headers(code, description);
  for (const [k, v] of pairs) h.append(k, v);
  return h;
}

function expected(pairs: [string, string][]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const [k, v] of pairs) m.set(k, [...(m.get(k) ?? []), v]);
  return m;
}

describe('headers properties', () => {
  it('encode then decode gives back status, keys (with case) and every value', () => {
    fc.assert(
      fc.property(status, entries, ([code, description], pairs) => {
        const h = build(code, description, pairs);
        const bytes = h.encode();
        expect(h.size).toBe(bytes.length);
        const back = MsgHdrsImpl.decode(bytes);
        expect(back.code).toBe(code);
        expect(back.description).toBe(description);
        const want = expected(pairs);
        expect(back.keys()).toEqual([...want.keys()]);
        for (const [k, vs] of want) expect(back.values(k)).toEqual(vs);
        expect(back.size).toBe(bytes.length);
      }),
      { numRuns: 300 },
    );
  });

  it('a decoded block re-encodes to the same bytes after a no-op change', () => {
    fc.assert(
      fc.property(status, entries, ([code, description], pairs) => {
        const bytes = build(code, description, pairs).encode();
        const back = MsgHdrsImpl.decode(bytes);
        back.append('Probe', 'x');
        back.delete('Probe');
        expect(back.encode()).toEqual(bytes);
        expect(back.size).toBe(bytes.length);
      }),
      { numRuns: 200 },
    );
  });

  it('LF-only blocks decode like CRLF blocks', () => {
    fc.assert(
      fc.property(status, entries, ([code, description], pairs) => {
        const crlf = build(code, description, pairs).toString();
        const lf = MsgHdrsImpl.decode(new TextEncoder().encode(crlf.replaceAll('\r\n', '\n')));
        const want = expected(pairs);
        expect(lf.code).toBe(code);
        for (const [k, vs] of want) expect(lf.values(k)).toEqual(vs);
      }),
      { numRuns: 100 },
    );
  });
});
