/**
 * Fair turns: a connection gets at most TURN_BYTES parsed per event-loop turn, counted across all
 * the chunks Node hands over in that turn, with its socket paused until the rest is parsed.
 */
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PacedReader, TURN_BYTES } from '../src/paced-reader.js';

const KiB = 1024;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function reader() {
  const parsed: Uint8Array[] = [];
  const socket = { paused: false };
  const fakeSocket = {
    pause: () => {
      socket.paused = true;
    },
    resume: () => {
      socket.paused = false;
    },
  } as unknown as Socket;
  const paced = new PacedReader((bytes) => parsed.push(bytes.slice()));
  const parsedBytes = () => parsed.reduce((sum, bytes) => sum + bytes.length, 0);
  return { paced, socket, fakeSocket, parsed, parsedBytes };
}

/** Bytes numbered by position, so reassembly in the wrong order would show. */
const chunk = (length: number, from = 0) => Uint8Array.from({ length }, (_, i) => (from + i) % 251);

describe('PacedReader', () => {
  it('parses a chunk within the turn budget at once, without pausing the socket', () => {
    const { paced, socket, fakeSocket, parsedBytes } = reader();
    paced.read(fakeSocket, chunk(TURN_BYTES));
    expect(parsedBytes()).toBe(TURN_BYTES);
    expect(socket.paused).toBe(false);
  });

  it('cuts a larger chunk into one budget a turn, in order, and resumes the socket at the end', async () => {
    const { paced, socket, fakeSocket, parsed, parsedBytes } = reader();
    const length = 2 * TURN_BYTES + 100;
    paced.read(fakeSocket, chunk(length));
    expect(parsedBytes()).toBe(TURN_BYTES);
    expect(socket.paused).toBe(true);
    await nextTurn();
    expect(parsedBytes()).toBe(2 * TURN_BYTES);
    expect(socket.paused).toBe(true);
    await nextTurn();
    expect(parsedBytes()).toBe(length);
    expect(socket.paused).toBe(false);
    expect(Buffer.concat(parsed)).toEqual(Buffer.from(chunk(length)));
  });

  it('counts the budget across the chunks of one turn', async () => {
    const { paced, socket, fakeSocket, parsed, parsedBytes } = reader();
    const third = 30 * KiB;
    for (let i = 0; i < 3; i++) paced.read(fakeSocket, chunk(third, i * third));
    expect(parsedBytes()).toBe(TURN_BYTES);
    expect(socket.paused).toBe(true);
    await nextTurn();
    expect(parsedBytes()).toBe(3 * third);
    expect(socket.paused).toBe(false);
    expect(Buffer.concat(parsed)).toEqual(Buffer.from(chunk(3 * third)));
  });

  it('gives each turn a fresh budget', async () => {
    const { paced, socket, fakeSocket, parsedBytes } = reader();
    paced.read(fakeSocket, chunk(TURN_BYTES));
    await nextTurn();
    paced.read(fakeSocket, chunk(TURN_BYTES));
    expect(parsedBytes()).toBe(2 * TURN_BYTES);
    expect(socket.paused).toBe(false);
  });

  it('parses nothing more once dropped, but resumes the socket so it can read the FIN', async () => {
    const { paced, socket, fakeSocket, parsedBytes } = reader();
    paced.read(fakeSocket, chunk(3 * TURN_BYTES));
    paced.drop();
    await nextTurn();
    await nextTurn();
    expect(parsedBytes()).toBe(TURN_BYTES);
    expect(socket.paused).toBe(false);
  });
});
