import { describe, expect, it } from 'vitest';
import {
  type ClientFrame,
  ClientSideParser,
  type FrameSink,
  type ParserOptions,
  ProtocolError,
  type ProtocolErrorCode,
  type ProtocolParser,
  type ServerFrame,
  ServerSideParser,
} from '../src/index.js';
import { acceptedInputs, rejectedCases } from './protocol-cases.js';

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const text = (data: Uint8Array | undefined) =>
  data === undefined ? undefined : new TextDecoder().decode(data);

/** What a server would read from these chunks. */
const fromClient = (...chunks: string[]) => ServerSideParser.parseAll(chunks.map(bytes));
/** What a client would read from these chunks. */
const fromServer = (...chunks: string[]) => ClientSideParser.parseAll(chunks.map(bytes));

/** A parser of the given side that collects what it finds in `out`. */
function collecting<F extends ClientFrame | ServerFrame>(
  Parser: new (sink: FrameSink<F>, options?: ParserOptions) => ProtocolParser<F>,
  options?: ParserOptions,
) {
  const out: (F | ProtocolError)[] = [];
  const parser = new Parser({ frame: (f) => out.push(f), error: (e) => out.push(e) }, options);
  return { parser, out };
}

/** Frames with payloads shown as text, so expectations read like the wire. */
function readable(results: (ClientFrame | ServerFrame | ProtocolError)[]) {
  return results.map((r) => {
    if (r instanceof ProtocolError) return { error: r.code, serverErrorText: r.serverErrorText };
    if (r.op === 'PUB' || r.op === 'MSG') {
      return { ...r, headers: text(r.headers), payload: text(r.payload) };
    }
    return r;
  });
}

/** A PUB frame as `readable` shows it; `hpub` defaults to whether a header block is given. */
function pub(
  subject: string,
  payload: string,
  {
    reply,
    headers,
    hpub = headers !== undefined,
  }: { reply?: string; headers?: string; hpub?: boolean } = {},
) {
  return { op: 'PUB', subject, reply, headers, payload, hpub };
}
/** A MSG frame as `readable` shows it. */
function msg(
  subject: string,
  sid: string,
  payload: string,
  { reply, headers }: { reply?: string; headers?: string } = {},
) {
  return { op: 'MSG', subject, sid, reply, headers, payload };
}
const sub = (subject: string, sid: string, queue?: string) => ({ op: 'SUB', subject, queue, sid });

function expectError(
  results: (ClientFrame | ServerFrame | ProtocolError)[],
  code: ProtocolErrorCode,
  serverErrorText: string | undefined,
) {
  const last = results.at(-1);
  expect(last).toBeInstanceOf(ProtocolError);
  expect((last as ProtocolError).code).toBe(code);
  expect((last as ProtocolError).serverErrorText).toBe(serverErrorText);
  expect(results.filter((r) => r instanceof ProtocolError)).toHaveLength(1);
}

describe('ServerSideParser: what a client sends', () => {
  it('parses CONNECT, PUB, HPUB, SUB, UNSUB, PING, PONG', () => {
    const results = fromClient(
      'CONNECT {"verbose":false,"headers":true}\r\n',
      'SUB foo 1\r\nSUB foo.* workers 2\r\n',
      'PUB foo 5\r\nhello\r\nPUB foo reply.to 0\r\n\r\n',
      'HPUB foo 12 14\r\nNATS/1.0\r\n\r\nhi\r\nHPUB foo _INBOX.1 18 18\r\nNATS/1.0\r\nA: b\r\n\r\n\r\n',
      'UNSUB 1\r\nUNSUB 2 10\r\nPING\r\nPONG\r\n',
    );
    expect(readable(results)).toEqual([
      { op: 'CONNECT', json: '{"verbose":false,"headers":true}' },
      sub('foo', '1'),
      sub('foo.*', '2', 'workers'),
      pub('foo', 'hello'),
      pub('foo', '', { reply: 'reply.to' }),
      pub('foo', 'hi', { headers: 'NATS/1.0\r\n\r\n' }),
      pub('foo', '', { reply: '_INBOX.1', headers: 'NATS/1.0\r\nA: b\r\n\r\n' }),
      { op: 'UNSUB', sid: '1', max: undefined },
      { op: 'UNSUB', sid: '2', max: 10 },
      { op: 'PING' },
      { op: 'PONG' },
    ]);
  });

  it('accepts verbs in any case', () => {
    const results = fromClient('connect {}\r\nPuB foo 1\r\nx\r\nsub foo 1\r\nUnSuB 1\r\n');
    expect(results.map((r) => (r as ClientFrame).op)).toEqual(['CONNECT', 'PUB', 'SUB', 'UNSUB']);
    expect(readable(fromClient('hpub foo 12 12\r\nNATS/1.0\r\n\r\n\r\npInG\r\npong\r\n'))).toEqual([
      pub('foo', '', { headers: 'NATS/1.0\r\n\r\n' }),
      { op: 'PING' },
      { op: 'PONG' },
    ]);
  });

  it.each([
    {
      what: 'separates arguments by any run of spaces and tabs',
      input: 'PUB\tfoo \t bar\t\t2\r\nhi\r\nSUB  foo\t q  9 \r\n',
      frames: [pub('foo', 'hi', { reply: 'bar' }), sub('foo', '9', 'q')],
    },
    {
      what: 'accepts control lines ended by a bare LF',
      input: 'CONNECT {}\nPUB foo 2\nhi\r\nPING\nSUB foo 1\n',
      frames: [{ op: 'CONNECT', json: '{}' }, pub('foo', 'hi'), { op: 'PING' }, sub('foo', '1')],
    },
    {
      what: 'treats PING/PONG/+OK followed by anything as that op, as nats-server does',
      input: 'PINGX\r\nPING foo\r\nPONGjunk\r\n+OK\r\n+okay\r\nPING\r\n',
      frames: [
        { op: 'PING' },
        { op: 'PING' },
        { op: 'PONG' },
        { op: 'OK' },
        { op: 'OK' },
        { op: 'PING' },
      ],
    },
    {
      what: 'passes client INFO through as a frame (the server ignores it)',
      input: 'INFO {"a":1}\r\nPING\r\n',
      frames: [{ op: 'INFO', json: '{"a":1}' }, { op: 'PING' }],
    },
    {
      what: 'gives CONNECT text as is, even when empty or glued to the verb',
      input: 'CONNECT\r\nCONNECT{}\r\nCONNECT   {bad\r\n',
      frames: [
        { op: 'CONNECT', json: '' },
        { op: 'CONNECT', json: '{}' },
        { op: 'CONNECT', json: '{bad' },
      ],
    },
    {
      what: 'decodes UTF-8 subjects',
      input: 'PUB grüße.日本 0\r\n\r\n',
      frames: [pub('grüße.日本', '')],
    },
    {
      what: 'accepts leading zeros in sizes',
      input: 'PUB foo 02\r\nhi\r\nHPUB foo 012 000000014\r\nNATS/1.0\r\n\r\nhi\r\n',
      frames: [pub('foo', 'hi'), pub('foo', 'hi', { headers: 'NATS/1.0\r\n\r\n' })],
    },
    {
      what: 'gives no headers for an HPUB with a zero-length header block, but says it was an HPUB',
      input: 'HPUB foo 0 2\r\nhi\r\n',
      frames: [pub('foo', 'hi', { hpub: true })],
    },
    {
      what: 'keeps payloads holding CR and LF intact',
      input: 'PUB foo 6\r\n\r\nPUB\n\r\n',
      frames: [pub('foo', '\r\nPUB\n')],
    },
    {
      what: 'reads UNSUB max as nats-server does: an unparsable max means none',
      input: 'UNSUB 1 0\r\nUNSUB 1 x\r\nUNSUB 1 -1\r\n',
      frames: [
        { op: 'UNSUB', sid: '1', max: 0 },
        { op: 'UNSUB', sid: '1', max: undefined },
        { op: 'UNSUB', sid: '1', max: undefined },
      ],
    },
  ])('$what', ({ input, frames }) => {
    expect(readable(fromClient(input))).toEqual(frames);
  });

  describe('rejects what nats-server rejects, with its -ERR text or none', () => {
    for (const { what, input, code, serverErrorText } of rejectedCases) {
      it(what, () => {
        expectError(fromClient(input), code, serverErrorText);
        // The same verdict however the input is cut.
        expectError(fromClient(...input.split('')), code, serverErrorText);
      });
    }
  });

  it('accepts everything nats-server accepts', () => {
    for (const input of acceptedInputs) {
      expect(fromClient(input).filter((r) => r instanceof ProtocolError)).toEqual([]);
    }
  });

  it('delivers the frames before an error and nothing after it', () => {
    const { parser, out } = collecting(ServerSideParser);
    parser.parse(bytes('PING\r\nXYZ\r\nPING\r\n'));
    parser.parse(bytes('PING\r\n'));
    expect(parser.failed).toBe(true);
    expect(out).toHaveLength(2);
    expect(out[0]).toEqual({ op: 'PING' });
    expect(out[1]).toBeInstanceOf(ProtocolError);
    expect((out[1] as ProtocolError).message).toContain('XYZ');
    expect(parser.bufferedBytes).toBe(0);
  });

  it('accepts a payload of exactly max payload', () => {
    const size = 1024 * 1024;
    const chunk = new Uint8Array(20 + size);
    const head = bytes(`PUB big ${size}\r\n`);
    chunk.set(head);
    chunk.set(bytes('\r\n'), head.length + size);
    const results = ServerSideParser.parseAll([chunk.subarray(0, head.length + size + 2)]);
    expect(results).toHaveLength(1);
    expect((results[0] as { payload: Uint8Array }).payload.length).toBe(size);
  });
});

describe('max control line', () => {
  const subLine = (args: string) => `SUB ${args}\r\nPING\r\n`;
  const a = (n: number) => 'a'.repeat(n);

  it('allows 4096 bytes of arguments and rejects 4097, as nats-server does', () => {
    expect(fromClient(subLine(`${a(4094)} 1`))).toHaveLength(2);
    expectError(
      fromClient(subLine(`${a(4095)} 1`)),
      'MAX_CONTROL_LINE',
      'maximum control line exceeded',
    );
  });

  it('counts trailing blanks but not the blanks after the verb', () => {
    expectError(
      fromClient(subLine(`${a(4094)} 1 `)),
      'MAX_CONTROL_LINE',
      'maximum control line exceeded',
    );
    expect(fromClient(`SUB  \t  ${a(4094)} 1\r\nPING\r\n`)).toHaveLength(2);
  });

  it('applies to CONNECT JSON', () => {
    const json = (n: number) => `{"name":"${a(n - 11)}"}`;
    expect(fromClient(`CONNECT ${json(4096)}\r\n`)).toEqual([{ op: 'CONNECT', json: json(4096) }]);
    expectError(
      fromClient(`CONNECT ${json(4097)}\r\n`),
      'MAX_CONTROL_LINE',
      'maximum control line exceeded',
    );
  });

  it('measures the same when the line arrives in pieces', () => {
    const accepted = subLine(`${a(4094)} 1`);
    const rejected = subLine(`${a(4095)} 1`);
    for (const size of [1, 7, 100, 4099]) {
      const pieces = (s: string) =>
        Array.from({ length: Math.ceil(s.length / size) }, (_, i) =>
          s.slice(i * size, (i + 1) * size),
        );
      expect(fromClient(...pieces(accepted))).toHaveLength(2);
      expectError(
        fromClient(...pieces(rejected)),
        'MAX_CONTROL_LINE',
        'maximum control line exceeded',
      );
    }
  });

  it('rejects a line without LF as soon as it is too long', () => {
    const { parser, out } = collecting(ServerSideParser);
    parser.parse(bytes(`PUB ${a(4096)}`));
    expect(out).toEqual([]);
    expect(parser.bufferedBytes).toBeLessThanOrEqual(4096 + 16);
    parser.parse(bytes('a'));
    expectError(out, 'MAX_CONTROL_LINE', 'maximum control line exceeded');
  });

  it('does not hoard the blanks after a verb or the tail of a PING line', () => {
    const subscriber = collecting(ServerSideParser);
    subscriber.parser.parse(bytes('SUB'));
    for (let i = 0; i < 100; i++) subscriber.parser.parse(new Uint8Array(100).fill(i % 2 ? 9 : 32));
    expect(subscriber.parser.bufferedBytes).toBeLessThanOrEqual(4);
    subscriber.parser.parse(bytes('foo 1\r\n'));
    expect(subscriber.out).toEqual([sub('foo', '1')]);
    const pinger = collecting(ServerSideParser);
    pinger.parser.parse(bytes('PING'));
    for (let i = 0; i < 100; i++) pinger.parser.parse(bytes('x'.repeat(100)));
    expect(pinger.parser.bufferedBytes).toBe(0);
    pinger.parser.parse(bytes('\r\n'));
    expect(pinger.out).toEqual([{ op: 'PING' }]);
  });

  it('rejects an unknown op before its line ends', () => {
    const { parser, out } = collecting(ServerSideParser);
    parser.parse(bytes('XY'));
    expectError(out, 'UNKNOWN_OPERATION', 'Unknown Protocol Operation');
  });

  it('is configurable, also after construction', () => {
    const { parser, out } = collecting(ServerSideParser, { maxControlLine: 10 });
    parser.parse(bytes('SUB 12345678 1\r\n'));
    expect(out).toHaveLength(1);
    parser.maxControlLine = 9;
    parser.parse(bytes('SUB 12345678 1\r\n'));
    expectError(out, 'MAX_CONTROL_LINE', 'maximum control line exceeded');
  });
});

describe('max payload', () => {
  it('is configurable, also after construction', () => {
    const { parser, out } = collecting(ServerSideParser, { maxPayload: 4 });
    parser.parse(bytes('PUB foo 4\r\nabcd\r\nHPUB foo 2 4\r\nabcd\r\n'));
    expect(out).toHaveLength(2);
    parser.maxPayload = 3;
    parser.parse(bytes('PUB foo 4\r\nabcd\r\n'));
    expectError(out, 'MAX_PAYLOAD', 'Maximum Payload Violation');
  });

  it('applies on the client side too', () => {
    expectError(
      ClientSideParser.parseAll([bytes('MSG foo 1 5\r\nhello\r\n')], { maxPayload: 4 }),
      'MAX_PAYLOAD',
      'Maximum Payload Violation',
    );
  });
});

describe('payload handling', () => {
  it('hands out a payload inside one chunk as a view of that chunk', () => {
    const chunk = bytes('PUB foo 5\r\nhello\r\nHPUB foo 12 14\r\nNATS/1.0\r\n\r\nhi\r\n');
    const [pub, hpub] = ServerSideParser.parseAll([chunk]) as Extract<ClientFrame, { op: 'PUB' }>[];
    expect(pub.payload.buffer).toBe(chunk.buffer);
    expect(pub.payload.byteOffset).toBe(11);
    expect(hpub.headers!.buffer).toBe(chunk.buffer);
    expect(hpub.payload.buffer).toBe(chunk.buffer);
  });

  it('hands out plain Uint8Array views of a Node Buffer chunk, at the same bytes', () => {
    // A subarray of a Buffer runs Buffer's own constructor, twice the cost per message.
    const chunk = Buffer.from('PUB foo 5\r\nhello\r\nHPUB foo 12 14\r\nNATS/1.0\r\n\r\nhi\r\n');
    const [pub, hpub] = ServerSideParser.parseAll([chunk]) as Extract<ClientFrame, { op: 'PUB' }>[];
    expect(pub.payload.constructor).toBe(Uint8Array);
    expect(pub.payload.buffer).toBe(chunk.buffer);
    expect(pub.payload.byteOffset).toBe(chunk.byteOffset + 11);
    expect(text(pub.payload)).toBe('hello');
    expect(hpub.headers!.constructor).toBe(Uint8Array);
    expect(text(hpub.headers)).toBe('NATS/1.0\r\n\r\n');
    expect(text(hpub.payload)).toBe('hi');
  });

  it('assembles a payload that spans chunks once, in a buffer of exactly its size', () => {
    const [msg] = fromServer('MSG foo 1 11\r\nhel', 'lo wo', 'rld\r', '\n') as Extract<
      ServerFrame,
      { op: 'MSG' }
    >[];
    expect(text(msg.payload)).toBe('hello world');
    expect(msg.payload.buffer.byteLength).toBe(11);
    const [hmsg] = fromServer('HMSG foo 1 12 14\r\nNATS/1.0\r', '\n\r\nhi', '\r\n') as Extract<
      ServerFrame,
      { op: 'MSG' }
    >[];
    expect(text(hmsg.headers)).toBe('NATS/1.0\r\n\r\n');
    expect(text(hmsg.payload)).toBe('hi');
    expect(hmsg.headers!.buffer).toBe(hmsg.payload.buffer);
    expect(hmsg.payload.buffer.byteLength).toBe(14);
  });

  it('reports a bad terminator as soon as its first byte arrives', () => {
    const { parser, out } = collecting(ClientSideParser);
    parser.parse(bytes('MSG foo 1 3\r\nab'));
    parser.parse(bytes('cd'));
    expectError(out, 'PAYLOAD_TERMINATOR', 'Unknown Protocol Operation');
  });

  it('counts a pending payload in bufferedBytes', () => {
    const { parser } = collecting(ClientSideParser);
    parser.parse(bytes('MSG foo 1 1000\r\nabc'));
    expect(parser.bufferedBytes).toBe(1000);
    parser.parse(new Uint8Array(997));
    parser.parse(bytes('\r\n'));
    expect(parser.bufferedBytes).toBe(0);
  });
});

describe('ClientSideParser: what a server sends', () => {
  it('parses INFO, MSG, HMSG, PING, PONG, +OK, -ERR', () => {
    const results = fromServer(
      'INFO {"server_id":"N1","max_payload":1048576} \r\n',
      '+OK\r\nMSG foo 1 5\r\nhello\r\nMSG foo 2 _INBOX.x 0\r\n\r\n',
      'HMSG foo 3 12 14\r\nNATS/1.0\r\n\r\nhi\r\nHMSG foo 4 reply 16 16\r\nNATS/1.0 503\r\n\r\n\r\n',
      "PING\r\nPONG\r\n-ERR 'Authorization Violation'\r\n",
    );
    expect(readable(results)).toEqual([
      { op: 'INFO', json: '{"server_id":"N1","max_payload":1048576}' },
      { op: 'OK' },
      msg('foo', '1', 'hello'),
      msg('foo', '2', '', { reply: '_INBOX.x' }),
      msg('foo', '3', 'hi', { headers: 'NATS/1.0\r\n\r\n' }),
      msg('foo', '4', '', { reply: 'reply', headers: 'NATS/1.0 503\r\n\r\n' }),
      { op: 'PING' },
      { op: 'PONG' },
      { op: 'ERR', message: 'Authorization Violation' },
    ]);
  });

  it('tolerates the two spaces nats-server 2.9.10 writes for an empty reply', () => {
    expect(readable(fromServer('MSG $JS.ACK.x 7  27\r\n{"stream":"S","seq":1}12345\r\n'))).toEqual([
      msg('$JS.ACK.x', '7', '{"stream":"S","seq":1}12345'),
    ]);
  });

  it('gives each message its own subject when subjects repeat or differ by a byte', () => {
    const subjects = [
      'foo.a',
      'foo.a',
      'foo.b',
      'foo.a',
      'föo',
      'fo.o',
      'föo',
      'x'.repeat(200),
      'x',
    ];
    const frames = fromServer(...subjects.map((s) => `MSG ${s} 1 0\r\n\r\n`));
    expect(frames.map((f) => (f as { subject: string }).subject)).toEqual(subjects);
  });

  it('keeps sids verbatim', () => {
    const [msg] = fromServer('MSG foo 007 0\r\n\r\n') as Extract<ServerFrame, { op: 'MSG' }>[];
    expect(msg.sid).toBe('007');
  });

  it('keeps an -ERR text that is not quoted', () => {
    expect(fromServer("-ERR Stale\r\n-err  'a b'\r\n")).toEqual([
      { op: 'ERR', message: 'Stale' },
      { op: 'ERR', message: 'a b' },
    ]);
  });

  it('rejects ops only a client sends, and malformed MSG lines', () => {
    expectError(
      fromServer('PUB foo 1\r\nx\r\n'),
      'UNKNOWN_OPERATION',
      'Unknown Protocol Operation',
    );
    expectError(fromServer('CONNECT {}\r\n'), 'UNKNOWN_OPERATION', 'Unknown Protocol Operation');
    expectError(fromServer('SUB foo 1\r\n'), 'UNKNOWN_OPERATION', 'Unknown Protocol Operation');
    expectError(fromServer('MSG foo 1\r\n'), 'MALFORMED_ARGUMENTS', undefined);
    expectError(fromServer('MSG foo 1 r x 1\r\n'), 'MALFORMED_ARGUMENTS', undefined);
    expectError(fromServer('HMSG foo 1 1\r\n'), 'MALFORMED_ARGUMENTS', undefined);
    expectError(fromServer('HMSG foo 1 3 2\r\n'), 'HEADER_SIZE', undefined);
    expectError(fromServer('MSG foo 1 x\r\n'), 'INVALID_SIZE', undefined);
  });
});
