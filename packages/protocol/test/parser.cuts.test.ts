import { describe, expect, it } from 'vitest';
import {
  type ClientFrame,
  ClientSideParser,
  ProtocolError,
  type ServerFrame,
  ServerSideParser,
} from '../src/index.js';
import { rejectedCases } from './protocol-cases.js';

// The parser reads a message's control line in one pass when the line is inside one chunk, and
// assembles it first when it is not: both must see the same line. These cut streams at every
// byte, so every split of a verb, a field, a separator run and a CRLF is taken once.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Result = ClientFrame | ServerFrame | ProtocolError;

/** Results with their byte fields as text and errors as their code, for comparing runs. */
function comparable(results: Result[]) {
  return results.map((r) => {
    if (r instanceof ProtocolError) return { error: r.code, text: r.serverErrorText };
    if (r.op !== 'PUB' && r.op !== 'MSG') return r;
    return {
      ...r,
      headers: r.headers && decoder.decode(r.headers),
      payload: decoder.decode(r.payload),
    };
  });
}

/** One side's parser over a whole stream. */
type Side = (chunks: Uint8Array[]) => Result[];
const serverSide: Side = (chunks) => ServerSideParser.parseAll(chunks);
const clientSide: Side = (chunks) => ClientSideParser.parseAll(chunks);

/** What `side` makes of `stream` cut at the given offsets. */
function cutAt(side: Side, stream: Uint8Array, cuts: number[]) {
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, stream.length]) {
    // Separate buffers, as a socket delivers them.
    chunks.push(stream.slice(from, cut));
    from = cut;
  }
  return comparable(side(chunks));
}

function expectSameAtEveryCut(side: Side, text: string, { pairs = false } = {}) {
  const stream = encoder.encode(text);
  const whole = cutAt(side, stream, []);
  for (let i = 1; i < stream.length; i++) {
    expect(cutAt(side, stream, [i]), `cut at ${i}`).toEqual(whole);
    if (!pairs) continue;
    for (let j = i + 1; j < stream.length; j++) {
      expect(cutAt(side, stream, [i, j]), `cut at ${i} and ${j}`).toEqual(whole);
    }
  }
  return whole;
}

const HEADERS = 'NATS/1.0\r\nA: b\r\n\r\n';

describe('a control line cut at any byte', () => {
  it("parses a client's stream the same: every op, tabs and runs of blanks, CRLF or a bare LF", () => {
    const stream = [
      'PUB foo 2\r\nhi\r\n',
      'pub\tfoo.bar\t_INBOX.r1\t3\r\nabc\r\n',
      `HPUB foo ${HEADERS.length} ${HEADERS.length + 2}\r\n${HEADERS}hi\r\n`,
      `hpub  foo \t reply  ${HEADERS.length}\t${HEADERS.length}\t\r\n${HEADERS}\r\n`,
      'PUB foo 0\n\r\n',
      'SUB foo.* q 12\r\nUNSUB 12 5\r\nsub\tbar\t13\nunsub 13\r\n',
      'PING\r\nPONG\r\nCONNECT {"verbose":false}\r\n',
      'PUB grüße.日本 1\r\nx\r\n',
    ].join('');
    const frames = expectSameAtEveryCut(serverSide, stream);
    expect(frames.filter((f) => 'op' in f && f.op === 'PUB')).toHaveLength(6);
    expect(frames.some((f) => 'error' in f)).toBe(false);
  });

  it("parses a server's stream the same, also cut in three", () => {
    const stream = [
      'MSG foo 1 2\r\nhi\r\n',
      'msg\tfoo\t22\treply.to\t0\r\n\r\n',
      `HMSG foo 9 ${HEADERS.length} ${HEADERS.length + 1}\r\n${HEADERS}x\r\n`,
      'MSG $JS.ACK.x 7  3\r\nabc\r\n',
      "PING\r\n-ERR 'x'\r\n",
    ].join('');
    const frames = expectSameAtEveryCut(clientSide, stream, { pairs: true });
    expect(frames.filter((f) => 'op' in f && f.op === 'MSG')).toHaveLength(4);
  });

  it('gives the same verdict on every rejected input', () => {
    for (const { what, input } of rejectedCases) {
      const stream = encoder.encode(input);
      const whole = cutAt(serverSide, stream, []);
      expect(whole.at(-1), what).toHaveProperty('error');
      for (let i = 1; i < stream.length; i++) {
        expect(cutAt(serverSide, stream, [i]), `${what}, cut at ${i}`).toEqual(whole);
      }
    }
  });

  it('rejects bad sizes, also after a reply and before a tab or CR', () => {
    for (const line of [
      'PUB foo 1x\r\n',
      'PUB foo r -1\r\n',
      'PUB foo\t1234567890\r\n',
      'HPUB foo r 1 x2\r\n',
      'HPUB foo +1 2\r\n',
    ]) {
      const whole = expectSameAtEveryCut(serverSide, line);
      // nats-server closes without a word.
      expect(whole, line).toEqual([{ error: 'INVALID_SIZE', text: undefined }]);
    }
    expect(expectSameAtEveryCut(clientSide, 'MSG foo 1 r 1x\r\n')).toEqual([
      { error: 'INVALID_SIZE', text: undefined },
    ]);
  });
});

describe('max control line of a message line inside one chunk', () => {
  const a = (n: number) => 'a'.repeat(n);

  it('allows 4096 bytes of PUB arguments and rejects 4097, blanks after the verb not counted', () => {
    // "<subject> <reply> 1": 4096 bytes of arguments.
    const allowed = `PUB \t ${a(2000)} ${a(2093)} 1\r\nx\r\nPING\r\n`;
    expect(ServerSideParser.parseAll([encoder.encode(allowed)])).toHaveLength(2);
    const rejected = ServerSideParser.parseAll([
      encoder.encode(`PUB \t ${a(2000)} ${a(2094)} 1\r\nx\r\nPING\r\n`),
    ]);
    expect(comparable(rejected as Result[])).toEqual([
      { error: 'MAX_CONTROL_LINE', text: 'maximum control line exceeded' },
    ]);
  });

  it('counts a trailing blank, but not the CR of the line end, on both sides', () => {
    const msg = (args: string) => encoder.encode(`MSG ${args}\r\nx\r\n`);
    expect(ClientSideParser.parseAll([msg(`${a(4092)} 1 1`)])).toHaveLength(1);
    expect((ClientSideParser.parseAll([msg(`${a(4092)} 1 1 `)])[0] as ProtocolError).code).toBe(
      'MAX_CONTROL_LINE',
    );
    const limited = (text: string) =>
      ServerSideParser.parseAll([encoder.encode(text)], { maxControlLine: 4 });
    expect(limited('PUB ab 1\nx\r\n')).toHaveLength(1);
    expect((limited('PUB ab 1\t\r\nx\r\n')[0] as ProtocolError).code).toBe('MAX_CONTROL_LINE');
  });
});
