import { describe, expect, it } from 'vitest';
import { createInbox, InvalidInboxPrefixError, Nuid, nuid, serverId } from '../src/nuid.js';
import { isValidPublishSubject } from '../src/subjects.js';

const BASE62 = /^[0-9A-Za-z]{22}$/;

describe('Nuid', () => {
  it('produces 22 base62 characters', () => {
    for (let i = 0; i < 1000; i++) expect(nuid.next()).toMatch(BASE62);
  });

  it('never repeats over 100k ids', () => {
    const n = new Nuid();
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(n.next());
    expect(seen.size).toBe(100_000);
  });

  it('keeps the 12-character prefix while the sequence advances', () => {
    const n = new Nuid();
    const a = n.next();
    const b = n.next();
    expect(b.slice(0, 12)).toBe(a.slice(0, 12));
    expect(b.slice(12)).not.toBe(a.slice(12));
  });

  it('gives independent generators different prefixes', () => {
    expect(new Nuid().next().slice(0, 12)).not.toBe(new Nuid().next().slice(0, 12));
  });

  it('renews prefix and sequence when the sequence rolls over', () => {
    // 247 % 62 = 61 ('z'): the first generation is all 'z', so the very first advance
    // carries out of the sequence; the renewal then draws zeros ('0').
    const fills = [247, 0];
    let call = 0;
    const n = new Nuid((bytes) => {
      bytes.fill(fills[Math.min(Math.floor(call / 2), 1)]!);
      call++;
    });
    const id = n.next();
    expect(id.slice(0, 12)).toBe('000000000000');
    // the id after a renewal is the fresh random sequence itself
    expect(id.slice(12)).toBe('0000000000');
  });

  it('carries across sequence digits', () => {
    // all-'1' digits (bytes of 63), increment 33 + (63 * 256 + 63) % 300 = 324
    const n = new Nuid((bytes) => bytes.fill(63));
    const first = n.next();
    const second = n.next();
    const value = (s: string) =>
      [...s].reduce(
        (acc, ch) =>
          acc * 62n +
          BigInt('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.indexOf(ch)),
        0n,
      );
    expect(value(second.slice(12)) - value(first.slice(12))).toBe(324n);
    expect(second.slice(0, 12)).toBe('111111111111');
  });
});

describe('createInbox', () => {
  it('builds a valid literal subject under _INBOX', () => {
    const inbox = createInbox();
    expect(inbox).toMatch(/^_INBOX\.[0-9A-Za-z]{22}$/);
    expect(isValidPublishSubject(inbox)).toBe(true);
  });

  it('accepts a custom prefix', () => {
    const inbox = createInbox('app.replies');
    expect(inbox.startsWith('app.replies.')).toBe(true);
    expect(isValidPublishSubject(inbox)).toBe(true);
  });

  it('treats an empty prefix as _INBOX, like nats.js', () => {
    expect(createInbox('')).toMatch(/^_INBOX\.[0-9A-Za-z]{22}$/);
  });

  it.each(['foo.*', '>', 'a..b', 'has space', '.'])('rejects prefix %j with a typed error', (p) => {
    let caught: unknown;
    try {
      createInbox(p);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInboxPrefixError);
    expect((caught as InvalidInboxPrefixError).code).toBe('INVALID_INBOX_PREFIX');
  });
});

describe('serverId', () => {
  it('is 56 upper-case base32 characters starting with N', () => {
    const id = serverId();
    expect(id).toHaveLength(56);
    expect(id).toMatch(/^N[A-Z2-7]{55}$/);
  });

  it('decodes like an NKey server public key: prefix byte 13 << 3 and a valid CRC-16', () => {
    // A real nats-server 2.9.10 server_id checks the checker first.
    expect(nkeyShape('NA3C3VT5T446ATNMQCUXZAKOR7NA6DORKNGNKGY3MQG7277B6YBA7CTX')).toEqual({
      prefix: 13 << 3,
      crcValid: true,
    });
    for (let i = 0; i < 20; i++) {
      expect(nkeyShape(serverId())).toEqual({ prefix: 13 << 3, crcValid: true });
    }
  });

  it('differs between calls', () => {
    expect(serverId()).not.toBe(serverId());
  });
});

/** Base32-decodes an NKey public key and checks its CRC-16/XMODEM trailer. */
function nkeyShape(key: string): { prefix: number; crcValid: boolean } {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of key) {
    buffer = ((buffer << 5) | alphabet.indexOf(ch)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  let crc = 0;
  for (const byte of bytes.slice(0, -2)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  const trailer = bytes[bytes.length - 2]! | (bytes[bytes.length - 1]! << 8);
  return { prefix: bytes[0]!, crcValid: bytes.length === 35 && trailer === crc };
}
