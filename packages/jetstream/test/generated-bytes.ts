import type { Hash } from 'node:crypto';

const PIECE = 64 * 1024;

/**
 * `size` bytes made on demand, a piece at a time, hashed into `hash` as they go out: a large
 * object without holding it in the test's memory.
 */
export function generatedBytes(size: number, hash: Hash): ReadableStream<Uint8Array> {
  let made = 0;
  return new ReadableStream({
    pull(controller) {
      if (made >= size) return controller.close();
      const piece = new Uint8Array(PIECE);
      for (let i = 0; i < PIECE; i += 4) piece[i] = (made + i) % 253;
      made += PIECE;
      hash.update(piece);
      controller.enqueue(piece);
    },
  });
}
