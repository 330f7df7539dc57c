import { describe, expect, it } from 'vitest';
import {
  type ClientFrame,
  type FrameSink,
  type ParserOptions,
  ProtocolError,
  type PublishSink,
  ServerSideParser,
} from '../src/index.js';
import { rejectedCases } from './protocol-cases.js';

// A server-side sink that is also a PublishSink takes PUB and HPUB as offsets into the bytes
// instead of frames. It must see exactly the messages a frame sink sees, wherever the stream is
// cut (a message inside one chunk, or assembled across chunks), and no PUB frame at all.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEADERS = 'NATS/1.0\r\nA: b\r\n\r\n';

/** Results as comparable values: byte fields as text, errors as their code. */
type Seen = Record<string, unknown>;

function seenFrame(frame: ClientFrame): Seen {
  if (frame.op !== 'PUB') return frame;
  return {
    ...frame,
    headers: frame.headers && decoder.decode(frame.headers),
    payload: decoder.decode(frame.payload),
  };
}

function seenError(error: ProtocolError): Seen {
  return { error: error.code, text: error.serverErrorText };
}

function withFrames(chunks: Uint8Array[], options?: ParserOptions): Seen[] {
  return ServerSideParser.parseAll(chunks, options).map((r) =>
    r instanceof ProtocolError ? seenError(r) : seenFrame(r),
  );
}

/** What a PublishSink receives, with its PUB and HPUB turned into the frames they stand for. */
function withPublishSink(chunks: Uint8Array[]): { seen: Seen[]; pubFrames: number } {
  const seen: Seen[] = [];
  let pubFrames = 0;
  const sink: FrameSink<ClientFrame> & PublishSink = {
    frame(frame) {
      if (frame.op === 'PUB') pubFrames++;
      seen.push(seenFrame(frame));
    },
    error(error) {
      seen.push(seenError(error));
    },
    publish(subject, reply, bytes, start, headersEnd, end, hpub) {
      expect(start).toBeLessThanOrEqual(headersEnd);
      expect(headersEnd).toBeLessThanOrEqual(end);
      seen.push(
        seenFrame({
          op: 'PUB',
          subject,
          reply,
          headers: headersEnd > start ? bytes.subarray(start, headersEnd) : undefined,
          payload: bytes.subarray(headersEnd, end),
          hpub,
        }),
      );
    },
  };
  const parser = new ServerSideParser(sink);
  for (const chunk of chunks) parser.parse(chunk);
  return { seen, pubFrames };
}

function cut(stream: Uint8Array, at: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, stream.length]) {
    chunks.push(stream.slice(from, to));
    from = to;
  }
  return chunks;
}

function expectSameAsFrames(text: string): Seen[] {
  const stream = encoder.encode(text);
  const whole = withFrames([stream]);
  for (let i = 0; i < stream.length; i++) {
    const chunks = cut(stream, i === 0 ? [] : [i]);
    const { seen, pubFrames } = withPublishSink(chunks);
    expect(seen, `cut at ${i}`).toEqual(whole);
    expect(pubFrames, `cut at ${i}`).toBe(0);
  }
  return whole;
}

describe('a PublishSink', () => {
  it('gets every PUB and HPUB a frame sink gets, in order with the other frames, cut anywhere', () => {
    const whole = expectSameAsFrames(
      [
        'CONNECT {"headers":true}\r\n',
        'PUB foo 2\r\nhi\r\n',
        'pub\tfoo.bar\t_INBOX.r1\t3\r\nabc\r\n',
        `HPUB foo ${HEADERS.length} ${HEADERS.length + 2}\r\n${HEADERS}hi\r\n`,
        `hpub  foo \t reply  ${HEADERS.length}\t${HEADERS.length}\t\r\n${HEADERS}\r\n`,
        'HPUB foo 0 2\r\nhi\r\n',
        'PUB foo 0\n\r\n',
        'SUB foo.* q 12\r\nPING\r\n',
        'PUB grüße.日本 1\r\nx\r\n',
      ].join(''),
    );
    const pubs = whole.filter((s) => s.op === 'PUB');
    expect(pubs).toHaveLength(7);
    expect(pubs[2]).toEqual({
      op: 'PUB',
      subject: 'foo',
      reply: undefined,
      headers: HEADERS,
      payload: 'hi',
      hpub: true,
    });
    // An HPUB with an empty header block: no headers, still an HPUB.
    expect(pubs[4]).toMatchObject({ headers: undefined, payload: 'hi', hpub: true });
  });

  it('gets the same errors as a frame sink on every rejected input, cut anywhere', () => {
    for (const { input } of rejectedCases) {
      const whole = expectSameAsFrames(input);
      expect(whole.at(-1), input).toHaveProperty('error');
    }
  });
});

// A PUB written as clients write it (`PUB subject [reply] size`, single spaces, CRLF, its payload
// in the same chunk) is read by a shorter path than the rest; a line that differs from that form
// in any way goes the general way from its start. Cut at every byte, a line or its payload spans
// two chunks and the general path reads it: both must agree, also at the limits.
describe('the plain PUB path', () => {
  const options = { maxControlLine: 24, maxPayload: 4 };
  const lines = [
    'PUB foo 2\r\nhi\r\n',
    'PUB foo.bar _INBOX.x 0\r\n\r\n',
    'PUB a 000000004\r\nabcd\r\n',
    'PUB foo  2\r\nhi\r\n',
    'PUB foo 2 \r\nhi\r\n',
    'PUB foo\t2\r\nhi\r\n',
    'PUB foo r\t2\r\nhi\r\n',
    'PUB foo 2\nhi\r\n',
    'PUB f\x0co 1\r\nx\r\n',
    'PUB grüße 1\r\nx\r\n',
    'PUB foo rü 1\r\nx\r\n',
    'PUB 0123456789abcdef012345 1\r\nx\r\n',
  ];
  const failing = [
    'PUB 0123456789abcdef0123456 1\r\nx\r\n',
    'PUB foo 5\r\nhello\r\n',
    'PUB foo 1234567890\r\n',
    'PUB foo r s 1\r\nx\r\n',
    'PUB foo 2\r\nhix\r\n',
    'PUB foo -1\r\n',
    'PUB foo\r\n',
    'PUB  \r\n',
  ];

  function expectSameAtEveryCut(text: string): Seen[] {
    const stream = encoder.encode(text);
    const whole = withFrames([stream], options);
    for (let i = 1; i < stream.length; i++) {
      expect(withFrames(cut(stream, [i]), options), `${JSON.stringify(text)} cut at ${i}`).toEqual(
        whole,
      );
    }
    return whole;
  }

  it('reads what the general path reads, one line after another', () => {
    const whole = expectSameAtEveryCut(`${lines.join('')}PING\r\n`);
    expect(whole.filter((s) => s.op === 'PUB')).toHaveLength(lines.length);
    expect(whole.at(-1)).toEqual({ op: 'PING' });
  });

  it('tells a repeated subject from one that shares its start or is cut short', () => {
    const subjects = ['foo', 'foo', 'foo', 'foo.bar', 'foo', 'foo', 'fo', 'foox', 'foo', 'foo'];
    const text = [
      ...subjects.map((subject) => `PUB ${subject} 1\r\nx\r\n`),
      'PUB foo r 1\r\nx\r\n',
      'PUB foo\t1\r\nx\r\n',
      'PUB foo 1\r\nx\r\n',
      'PUB fo\x0co 1\r\nx\r\n',
    ].join('');
    const whole = expectSameAtEveryCut(text);
    expect(whole.map((s) => s.subject)).toEqual([...subjects, 'foo', 'foo', 'foo', 'fo\x0co']);
    expect(whole.map((s) => s.reply)).toEqual([
      ...subjects.map(() => undefined),
      'r',
      ...[1, 2, 3].map(() => undefined),
    ]);
  });

  it('leaves every broken line to the general path, which rejects it', () => {
    for (const line of failing) {
      const whole = expectSameAtEveryCut(`PUB ok 1\r\nx\r\n${line}`);
      expect(whole, line).toHaveLength(2);
      expect(whole[1], line).toHaveProperty('error');
    }
  });
});
