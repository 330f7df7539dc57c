import { describe, expect, it } from 'vitest';
import {
  canonicalMIMEHeaderKey,
  HeaderError,
  headers,
  Match,
  MsgHdrsImpl,
  validateHeaderKey,
  validateHeaderValue,
} from '../src/headers.js';

const te = new TextEncoder();
const td = new TextDecoder();
const decode = (text: string) => MsgHdrsImpl.decode(te.encode(text));
const text = (h: MsgHdrsImpl) => td.decode(h.encode());

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('encoding', () => {
  it('encodes an empty header block as the 12-byte minimum', () => {
    const h = headers();
    expect(text(h)).toBe('NATS/1.0\r\n\r\n');
    expect(h.size).toBe(12);
  });

  it('encodes multi-valued keys with the case they were set with', () => {
    const h = headers();
    h.append('X-Id', '1');
    h.append('x-id', '2');
    h.append('X-Id', '3');
    expect(text(h)).toBe('NATS/1.0\r\nX-Id: 1\r\nX-Id: 3\r\nx-id: 2\r\n\r\n');
  });

  it.each([
    [503, '', 'NATS/1.0 503\r\n\r\n'],
    [408, 'Request Timeout', 'NATS/1.0 408 Request Timeout\r\n\r\n'],
    [100, 'Idle Heartbeat', 'NATS/1.0 100 Idle Heartbeat\r\n\r\n'],
    [404, 'No Messages', 'NATS/1.0 404 No Messages\r\n\r\n'],
  ] as const)('writes status %i %j', (code, description, expected) => {
    const h = headers(code, description);
    expect(text(h)).toBe(expected);
    expect(h.size).toBe(te.encode(expected).length);
  });

  it('counts bytes, not characters, in size', () => {
    const h = headers();
    h.set('Greeting', 'héllo wörld 🚀');
    expect(h.size).toBe(h.encode().length);
    expect(h.size).toBeGreaterThan(h.toString().length);
  });

  it('re-encodes after a change', () => {
    const h = headers();
    h.set('A', '1');
    const first = h.encode();
    h.set('A', '2');
    expect(td.decode(first)).toContain('A: 1');
    expect(text(h)).toBe('NATS/1.0\r\nA: 2\r\n\r\n');
  });
});

describe('status', () => {
  it.each([
    ['NATS/1.0\r\n\r\n', 0, '', '', false],
    ['NATS/1.0 503\r\n\r\n', 503, '', '503', true],
    ['NATS/1.0 408 Request Timeout\r\n\r\n', 408, 'Request Timeout', '408 Request Timeout', true],
    ['NATS/1.0 100 Idle Heartbeat\r\n\r\n', 100, 'Idle Heartbeat', '100 Idle Heartbeat', false],
    ['NATS/1.0 404 No Messages\r\n\r\n', 404, 'No Messages', '404 No Messages', true],
    [
      'NATS/1.0 409 Message Size Exceeds MaxBytes\r\n\r\n',
      409,
      'Message Size Exceeds MaxBytes',
      '409 Message Size Exceeds MaxBytes',
      true,
    ],
    ['NATS/1.0   503   \r\n\r\n', 503, '', '503', true],
    ['NATS/1.0 \r\n\r\n', 0, '', '', false],
    ['NATS/1.0 abc\r\n\r\n', 0, '', '', false],
    ['HTTP/1.1 200 OK\r\n\r\n', 0, '', '', false],
  ] as const)('decodes %j', (block, code, description, status, hasError) => {
    const h = decode(block);
    expect(h.code).toBe(code);
    expect(h.description).toBe(description);
    expect(h.status).toBe(status);
    expect(h.hasError).toBe(hasError);
  });

  it('reads the status and headers together', () => {
    const h = decode('NATS/1.0 100 FlowControl Request\r\nNats-Consumer-Stalled: $JS.FC.x\r\n\r\n');
    expect(h.code).toBe(100);
    expect(h.description).toBe('FlowControl Request');
    expect(h.get('Nats-Consumer-Stalled')).toBe('$JS.FC.x');
  });

  it('rejects bad status arguments with a typed error', () => {
    for (const make of [
      () => headers(0, 'text'),
      () => headers(-1),
      () => headers(1000),
      () => headers(1.5),
      () => headers(503, 'a\r\nb'),
    ]) {
      const error = thrown(make);
      expect(error).toBeInstanceOf(HeaderError);
      expect((error as HeaderError).code).toBe('INVALID_STATUS');
    }
  });
});

describe('decoding', () => {
  it('groups repeated keys and keeps their order', () => {
    const h = decode('NATS/1.0\r\nA: 1\r\nB: 2\r\nA: 3\r\n\r\n');
    expect(h.keys()).toEqual(['A', 'B']);
    expect(h.values('A')).toEqual(['1', '3']);
    expect(h.get('A')).toBe('1');
    expect(h.last('A')).toBe('3');
    expect([...h]).toEqual([
      ['A', ['1', '3']],
      ['B', ['2']],
    ]);
  });

  it('accepts LF-only lines', () => {
    const h = decode('NATS/1.0 503\nA: 1\nB: 2\n\n');
    expect(h.code).toBe(503);
    expect(h.get('A')).toBe('1');
    expect(h.get('B')).toBe('2');
  });

  it('keeps colons inside values and trims around them', () => {
    const h = decode('NATS/1.0\r\nNats-Msg-Id:   a:b:c  \r\nUrl:http://x:80/\r\n\r\n');
    expect(h.get('Nats-Msg-Id')).toBe('a:b:c');
    expect(h.get('Url')).toBe('http://x:80/');
  });

  it('accepts empty values, UTF-8 values and a missing final blank line', () => {
    const h = decode('NATS/1.0\r\nEmpty:\r\nName: zoë 🚀\r\n');
    expect(h.has('Empty')).toBe(true);
    expect(h.get('Empty')).toBe('');
    expect(h.get('Name')).toBe('zoë 🚀');
  });

  it('skips lines without a colon and stops at the blank line', () => {
    const h = decode('NATS/1.0\r\ngarbage\r\nA: 1\r\n\r\nB: 2\r\n');
    expect(h.keys()).toEqual(['A']);
  });

  it('reads a large block of colon-less lines in linear time', () => {
    const h = decode(`NATS/1.0\r\n${'junk\r\n'.repeat(200_000)}A: 1\r\n\r\n`);
    expect(h.keys()).toEqual(['A']);
  });

  it('returns the received bytes unchanged until a change, then re-encodes', () => {
    const block = te.encode('NATS/1.0 100 Idle Heartbeat\nA:1\n\n');
    const h = MsgHdrsImpl.decode(block);
    expect(h.encode()).toBe(block);
    expect(h.size).toBe(block.length);
    h.append('B', '2');
    expect(text(h)).toBe('NATS/1.0 100 Idle Heartbeat\r\nA: 1\r\nB: 2\r\n\r\n');
    expect(h.size).toBe(h.encode().length);
  });

  it('decodes a subarray view of a larger chunk', () => {
    const chunk = te.encode('HMSG foo 1 22 24\r\nNATS/1.0\r\nA: 1\r\n\r\nhi\r\n');
    const h = MsgHdrsImpl.decode(chunk.subarray(18, 40));
    expect(h.get('A')).toBe('1');
    expect(h.size).toBe(22);
  });

  it('round-trips through encode', () => {
    const h = headers(408, 'Request Timeout');
    h.append('k', 'v1');
    h.append('K', 'v2');
    h.append('k', 'v3');
    const back = MsgHdrsImpl.decode(h.encode());
    expect(back.code).toBe(408);
    expect(back.description).toBe('Request Timeout');
    expect(back.keys()).toEqual(['k', 'K']);
    expect(back.values('k')).toEqual(['v1', 'v3']);
    expect(back.values('K')).toEqual(['v2']);
  });
});

describe('matching', () => {
  const make = () => {
    const h = headers();
    h.append('Content-Type', 'a');
    h.append('content-type', 'b');
    h.append('X-Other', 'c');
    return h;
  };

  it('matches exactly by default', () => {
    const h = make();
    expect(h.get('Content-Type')).toBe('a');
    expect(h.get('content-type')).toBe('b');
    expect(h.get('CONTENT-TYPE')).toBe('');
    expect(h.has('CONTENT-TYPE')).toBe(false);
    expect(h.values('CONTENT-TYPE')).toEqual([]);
    expect(h.last('missing')).toBe('');
  });

  it('ignores case when asked', () => {
    const h = make();
    expect(h.get('CONTENT-TYPE', Match.IgnoreCase)).toBe('a');
    expect(h.values('CONTENT-TYPE', Match.IgnoreCase)).toEqual(['a', 'b']);
    expect(h.last('CONTENT-TYPE', Match.IgnoreCase)).toBe('b');
    expect(h.has('x-other', Match.IgnoreCase)).toBe(true);
  });

  it('canonicalises the lookup key with Match.CanonicalMIME', () => {
    const h = make();
    expect(h.get('CONTENT-TYPE', Match.CanonicalMIME)).toBe('a');
    expect(h.values('content-type', Match.CanonicalMIME)).toEqual(['a']);
  });

  it('deletes every matching key', () => {
    const h = make();
    h.delete('CONTENT-TYPE', Match.IgnoreCase);
    expect(h.keys()).toEqual(['X-Other']);
    h.delete('x-other');
    expect(h.keys()).toEqual(['X-Other']);
    h.delete('X-Other');
    expect(h.keys()).toEqual([]);
  });

  it('set replaces the values of all matching keys', () => {
    const h = make();
    h.set('CONTENT-TYPE', 'z', Match.IgnoreCase);
    expect(h.keys()).toEqual(['X-Other', 'CONTENT-TYPE']);
    expect(h.values('CONTENT-TYPE')).toEqual(['z']);
  });

  it('append reuses a matching key under a non-exact match', () => {
    const h = make();
    h.append('X-OTHER', 'd', Match.IgnoreCase);
    expect(h.values('X-Other')).toEqual(['c', 'd']);
    h.append('x-new', 'e', Match.CanonicalMIME);
    expect(h.keys()).toContain('X-New');
  });

  it('matches decoded keys case-insensitively on request', () => {
    const h = decode('NATS/1.0\r\nnats-msg-id: 42\r\n\r\n');
    expect(h.get('Nats-Msg-Id')).toBe('');
    expect(h.get('Nats-Msg-Id', Match.IgnoreCase)).toBe('42');
  });
});

describe('validation', () => {
  it.each(['', 'a b', 'a:b', 'a\r', 'a\n', 'ключ', 'tab\tkey', '\u007f'])(
    'rejects key %j with a typed error and keeps existing values',
    (key) => {
      const h = headers();
      h.set('Keep', 'me');
      const error = thrown(() => h.set(key, 'v'));
      expect(error).toBeInstanceOf(HeaderError);
      expect((error as HeaderError).code).toBe('INVALID_HEADER_KEY');
      expect(validateHeaderKey(key)?.code).toBe('INVALID_HEADER_KEY');
      expect(text(h)).toBe('NATS/1.0\r\nKeep: me\r\n\r\n');
    },
  );

  it.each(['a\rb', 'a\nb', '\r\n'])('rejects value %j', (value) => {
    const h = headers();
    h.set('K', 'old');
    const error = thrown(() => h.set('K', value));
    expect((error as HeaderError).code).toBe('INVALID_HEADER_VALUE');
    expect(validateHeaderValue(value)).toBeInstanceOf(HeaderError);
    expect(h.get('K')).toBe('old');
  });

  it('accepts every printable ASCII key character but the colon', () => {
    const key = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))
      .filter((c) => c !== ':')
      .join('');
    expect(validateHeaderKey(key)).toBeUndefined();
    const h = headers();
    h.set(key, 'v');
    expect(MsgHdrsImpl.decode(h.encode()).get(key)).toBe('v');
  });

  it('trims values as nats.js does', () => {
    const h = headers();
    h.set('K', '  spaced  ');
    expect(h.get('K')).toBe('spaced');
  });
});

describe('canonicalMIMEHeaderKey', () => {
  it.each([
    ['content-type', 'Content-Type'],
    ['CONTENT-TYPE', 'Content-Type'],
    ['nats-msg-id', 'Nats-Msg-Id'],
    ['x', 'X'],
    ['a--b', 'A--B'],
    ['1abc', '1abc'],
  ])('%j -> %j', (input, expected) => {
    expect(canonicalMIMEHeaderKey(input)).toBe(expected);
  });

  it('throws a typed error for invalid keys', () => {
    expect(thrown(() => canonicalMIMEHeaderKey('bad key'))).toBeInstanceOf(HeaderError);
  });
});
