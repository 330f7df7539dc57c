/// <reference lib="es2024.arraybuffer" />

/** One chunk's most; large enough that a 64 MiB backlog is 64 chunks, not thousands. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Bytes waiting for a socket that pushes back, kept in chunks of up to 1 MiB whose memory goes back
 * to the system the moment they are released, garbage collection or not. Each chunk is a resizable
 * ArrayBuffer: it grows in place as bytes arrive and shrinking it to nothing returns its pages at
 * once. A plain buffer is freed only by a full garbage collection, and an idle server may not run
 * one for a long time: 10 slow consumers cut at 64 MiB each left about 700 MiB resident that way.
 */
export class Backlog {
  readonly #chunks: ArrayBuffer[] = [];
  #bytes = 0;

  /** Bytes held. */
  get length(): number {
    return this.#bytes;
  }

  /** Copies `bytes` in at the end. */
  append(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      let last = this.#chunks.at(-1);
      if (last === undefined || last.byteLength === CHUNK_BYTES) {
        last = new ArrayBuffer(0, { maxByteLength: CHUNK_BYTES });
        this.#chunks.push(last);
      }
      const start = last.byteLength;
      const count = Math.min(CHUNK_BYTES - start, bytes.length - offset);
      last.resize(start + count);
      new Uint8Array(last, start, count).set(bytes.subarray(offset, offset + count));
      offset += count;
    }
    this.#bytes += bytes.length;
  }

  /**
   * Takes out the oldest chunk's bytes, to be written as they are; hand them to `release` once the
   * socket is finished with them (its write callback).
   */
  shift(): Uint8Array | undefined {
    const chunk = this.#chunks.shift();
    if (chunk === undefined) return undefined;
    this.#bytes -= chunk.byteLength;
    return new Uint8Array(chunk, 0, chunk.byteLength);
  }

  /** Gives the memory of bytes from `shift()` back to the system. */
  static release(bytes: Uint8Array): void {
    (bytes.buffer as ArrayBuffer).resize(0);
  }

  /** Drops everything held and gives its memory back. */
  clear(): void {
    for (const chunk of this.#chunks) chunk.resize(0);
    this.#chunks.length = 0;
    this.#bytes = 0;
  }
}
