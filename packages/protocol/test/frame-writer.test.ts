import { describe, expect, it } from 'vitest';
import { decodeUtf8, encodeUtf8, FrameWriter } from '../src/index.js';

/** The bytes one call writes, as text. */
function written(write: (writer: FrameWriter) => void): string {
  const writer = new FrameWriter();
  write(writer);
  return decodeUtf8(writer.take());
}

const hello = encodeUtf8('hello');
const header = encodeUtf8('NATS/1.0\r\nA: b\r\n\r\n');

describe('FrameWriter', () => {
  it('writes PUB with and without a reply', () => {
    expect(written((w) => w.pub('foo', undefined, hello))).toBe('PUB foo 5\r\nhello\r\n');
    expect(written((w) => w.pub('foo', 'bar', hello))).toBe('PUB foo bar 5\r\nhello\r\n');
    expect(written((w) => w.pub('foo', '', new Uint8Array(0)))).toBe('PUB foo 0\r\n\r\n');
  });

  it('writes HPUB with exact header and total sizes', () => {
    expect(written((w) => w.pub('foo', undefined, hello, header))).toBe(
      'HPUB foo 18 23\r\nNATS/1.0\r\nA: b\r\n\r\nhello\r\n',
    );
    expect(written((w) => w.pub('foo', 'r', new Uint8Array(0), header))).toBe(
      'HPUB foo r 18 18\r\nNATS/1.0\r\nA: b\r\n\r\n\r\n',
    );
  });

  it('writes an empty header block as a plain PUB/MSG', () => {
    expect(written((w) => w.pub('foo', undefined, hello, new Uint8Array(0)))).toBe(
      'PUB foo 5\r\nhello\r\n',
    );
    expect(written((w) => w.msg('foo', 1, undefined, hello, new Uint8Array(0)))).toBe(
      'MSG foo 1 5\r\nhello\r\n',
    );
  });

  it('writes MSG and HMSG with numeric or string sids', () => {
    expect(written((w) => w.msg('foo', 1, undefined, hello))).toBe('MSG foo 1 5\r\nhello\r\n');
    expect(written((w) => w.msg('foo', 'abc', '_INBOX.x', hello))).toBe(
      'MSG foo abc _INBOX.x 5\r\nhello\r\n',
    );
    expect(written((w) => w.msg('foo', 42, 'r', hello, header))).toBe(
      'HMSG foo 42 r 18 23\r\nNATS/1.0\r\nA: b\r\n\r\nhello\r\n',
    );
  });

  it('writes the end of a MSG or HMSG line after a start written as bytes', () => {
    const start = encodeUtf8('MSG foo 1');
    const line = (reply: string | undefined, headerSize: number | undefined, size: number) =>
      written((w) => {
        w.bytes(start);
        w.msgLineEnd(reply, headerSize, size);
      });
    expect(line(undefined, undefined, 5)).toBe('MSG foo 1 5\r\n');
    expect(line('$JS.ACK.S.C.1.2.3.1764590000000000001.0', undefined, 128)).toBe(
      'MSG foo 1 $JS.ACK.S.C.1.2.3.1764590000000000001.0 128\r\n',
    );
    expect(line('r', 18, 5)).toBe('MSG foo 1 r 18 23\r\n');
    expect(line(undefined, 18, 0)).toBe('MSG foo 1 18 18\r\n');
    // A reply decoded from invalid UTF-8 goes back out as its bytes.
    const bytes = new FrameWriter();
    bytes.msgLineEnd('a\udcffb', undefined, 0);
    expect([...bytes.take()]).toEqual([0x20, 0x61, 0xff, 0x62, 0x20, 0x30, 0x0d, 0x0a]);
  });

  it('writes SUB, UNSUB, CONNECT, INFO, PING, PONG, +OK, -ERR', () => {
    expect(written((w) => w.sub('foo.*', 7))).toBe('SUB foo.* 7\r\n');
    expect(written((w) => w.sub('foo.>', '8', 'workers'))).toBe('SUB foo.> workers 8\r\n');
    expect(written((w) => w.sub('foo', 9, ''))).toBe('SUB foo 9\r\n');
    expect(written((w) => w.unsub(7))).toBe('UNSUB 7\r\n');
    expect(written((w) => w.unsub('7', 0))).toBe('UNSUB 7 0\r\n');
    expect(written((w) => w.unsub(7, 1234567890))).toBe('UNSUB 7 1234567890\r\n');
    expect(written((w) => w.connect({ verbose: false, name: 'é' }))).toBe(
      'CONNECT {"verbose":false,"name":"é"}\r\n',
    );
    expect(written((w) => w.info('{"server_id":"N"}'))).toBe('INFO {"server_id":"N"} \r\n');
    expect(
      written((w) =>
        w.info({
          server_id: 'N',
          server_name: 'n',
          version: '2.9.10',
          proto: 1,
          go: 'node',
          host: '127.0.0.1',
          port: 4222,
          headers: true,
          max_payload: 1048576,
        }),
      ),
    ).toBe(
      'INFO {"server_id":"N","server_name":"n","version":"2.9.10","proto":1,"go":"node","host":"127.0.0.1","port":4222,"headers":true,"max_payload":1048576} \r\n',
    );
    expect(
      written((w) => {
        w.ping();
        w.pong();
        w.ok();
      }),
    ).toBe('PING\r\nPONG\r\n+OK\r\n');
    expect(written((w) => w.err('Authorization Violation'))).toBe(
      "-ERR 'Authorization Violation'\r\n",
    );
  });

  it('writes numbers exactly', () => {
    for (const sid of [0, 9, 10, 99, 100, 1000, 12345, 9007199254740991]) {
      expect(written((w) => w.unsub(sid, sid))).toBe(`UNSUB ${sid} ${sid}\r\n`);
    }
  });

  it('encodes non-ASCII subjects as UTF-8, with sizes in bytes', () => {
    const payload = encodeUtf8('ü');
    const w = new FrameWriter();
    w.pub('grüße.日本.😀', 'ré', payload, encodeUtf8('NATS/1.0\r\nK: ü\r\n\r\n'));
    const out = w.take();
    expect(decodeUtf8(out)).toBe('HPUB grüße.日本.😀 ré 19 21\r\nNATS/1.0\r\nK: ü\r\n\r\nü\r\n');
    expect(out).toEqual(encodeUtf8('HPUB grüße.日本.😀 ré 19 21\r\nNATS/1.0\r\nK: ü\r\n\r\nü\r\n'));
  });

  it('puts many frames into one buffer and grows it as needed', () => {
    const w = new FrameWriter(1);
    const big = new Uint8Array(100_000).fill(120);
    let expected = '';
    for (let i = 0; i < 50; i++) {
      w.pub(`s.${i}`, undefined, i === 25 ? big : hello);
      expected += `PUB s.${i} ${i === 25 ? 100_000 : 5}\r\n${i === 25 ? 'x'.repeat(100_000) : 'hello'}\r\n`;
    }
    w.bytes(encodeUtf8('PING\r\n'));
    expected += 'PING\r\n';
    expect(w.length).toBe(encodeUtf8(expected).length);
    expect(decodeUtf8(w.take())).toBe(expected);
  });

  it('bytes() appends arrays of every short and long length exactly, also from a Buffer view', () => {
    const w = new FrameWriter(1);
    const expected: number[] = [];
    for (let length = 0; length <= 40; length++) {
      const data = Uint8Array.from({ length }, (_, i) => (length * 7 + i) & 0xff);
      w.bytes(length % 2 === 0 ? data : Buffer.from(data.buffer, 0, length));
      expected.push(...data);
    }
    expect(w.take()).toEqual(Uint8Array.from(expected));
  });

  it('take() hands out a copy and empties the writer, which stays usable', () => {
    const w = new FrameWriter();
    w.ping();
    const first = w.take();
    expect(w.length).toBe(0);
    w.pong();
    expect(decodeUtf8(first)).toBe('PING\r\n');
    expect(decodeUtf8(w.take())).toBe('PONG\r\n');
    expect(w.take()).toEqual(new Uint8Array(0));
  });

  it('writeTo() lends its bytes and reuses the buffer only when the writer is done with them', () => {
    const w = new FrameWriter();
    w.ping();
    let lent: Uint8Array = new Uint8Array(0);
    w.writeTo((bytes) => {
      lent = bytes;
      return true;
    });
    expect(w.length).toBe(0);
    expect(decodeUtf8(lent)).toBe('PING\r\n');
    w.pong();
    // Done with: the same memory is written again, no copy was made.
    expect(decodeUtf8(lent)).toBe('PONG\r\n');
    w.writeTo((bytes) => {
      lent = bytes;
      return false;
    });
    w.ping();
    // Still held by the consumer: the writer moved to another buffer.
    expect(decodeUtf8(lent)).toBe('PONG\r\n');
    expect(decodeUtf8(w.take())).toBe('PING\r\n');
  });
});
