// The frame reader on its own: unmasking at any alignment and key position, headers and payloads
// cut anywhere, and where a compressed message ends.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FrameReader, type FrameSink, unmask } from '../src/websocket-frame-reader.js';

/** A masked client frame. */
function frame(first: number, payload: Uint8Array, key = randomBytes(4)): Buffer {
  const extended = payload.length < 126 ? 0 : payload.length < 0x10000 ? 2 : 8;
  const header = Buffer.alloc(2 + extended + 4);
  header[0] = first;
  header[1] = 0x80 | (extended === 0 ? payload.length : extended === 2 ? 126 : 127);
  if (extended === 2) header.writeUInt16BE(payload.length, 2);
  if (extended === 8) header.writeBigUInt64BE(BigInt(payload.length), 2);
  key.copy(header, 2 + extended);
  const masked = Buffer.from(payload).map((byte, i) => byte ^ key[i & 3]!);
  return Buffer.concat([header, masked]);
}

function recorder() {
  const events: string[] = [];
  let data = Buffer.alloc(0);
  const sink: FrameSink = {
    data: (bytes) => {
      data = Buffer.concat([data, bytes]);
    },
    compressed: (bytes, last) =>
      void events.push(`compressed ${bytes.length}${last ? ' last' : ''}`),
    control: (opcode, payload) => void events.push(`control ${opcode} ${Buffer.from(payload)}`),
    error: (message) => void events.push(`error ${message}`),
  };
  return { sink, events, data: () => data };
}

describe('unmask', () => {
  it('matches a byte-by-byte XOR at every alignment, key position and length', () => {
    const key = randomBytes(4);
    for (let length = 0; length <= 80; length++) {
      for (let byteOffset = 0; byteOffset < 4; byteOffset++) {
        for (let keyOffset = 0; keyOffset < 4; keyOffset++) {
          const original = randomBytes(length);
          const bytes = new Uint8Array(length + 4).subarray(byteOffset, byteOffset + length);
          bytes.set(original);
          const next = unmask(bytes, key, keyOffset);
          const expected = original.map((byte, i) => byte ^ key[(keyOffset + i) & 3]!);
          expect(Buffer.from(bytes).equals(expected)).toBe(true);
          expect(next).toBe((keyOffset + length) & 3);
        }
      }
    }
  });
});

describe('FrameReader', () => {
  it('reads frames fed one byte at a time, control frames between fragments', () => {
    const { sink, events, data } = recorder();
    const reader = new FrameReader(sink, { compression: false, masked: true });
    const text = randomBytes(70_000);
    const bytes = Buffer.concat([
      frame(0x02, text.subarray(0, 200)),
      frame(0x89, Buffer.from('hi')),
      frame(0x00, text.subarray(200, 69_000)),
      frame(0x80, text.subarray(69_000)),
    ]);
    for (let at = 0; at < bytes.length; at++) reader.read(bytes.subarray(at, at + 1));
    expect(events).toEqual(['control 9 hi']);
    expect(data().equals(text)).toBe(true);
  });

  it('ends a compressed message at its final frame, an empty one included', () => {
    const { sink, events } = recorder();
    const reader = new FrameReader(sink, { compression: true, masked: true });
    reader.read(frame(0x42, Buffer.alloc(10)));
    reader.read(frame(0x80, Buffer.alloc(0)));
    reader.read(frame(0xc2, Buffer.alloc(3)));
    expect(events).toEqual(['compressed 10', 'compressed 0 last', 'compressed 3 last']);
  });

  it('stops at the first broken rule', () => {
    const { sink, events } = recorder();
    const reader = new FrameReader(sink, { compression: false, masked: true });
    reader.read(Buffer.concat([frame(0xc2, Buffer.alloc(1)), frame(0x89, Buffer.from('x'))]));
    expect(events).toEqual(['error compressed frame without permessage-deflate']);
    expect(reader.stopped).toBe(true);
  });
});
