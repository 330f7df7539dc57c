/**
 * Node reads each socket into a new buffer outside the JavaScript heap, which only a garbage
 * collection frees once it is dead. A server that reads fast and allocates little (a publisher
 * whose messages nobody takes) runs few collections: dead read buffers piled up to V8's limit for
 * external memory (about 64 MiB) before a full collection took them, and the process kept the
 * pages. A host that can ask V8 for a collection (the installed command can) registers it here;
 * the server calls it each time its clients have sent another READ_BYTES_PER_COLLECT bytes.
 */
const READ_BYTES_PER_COLLECT = 4 * 1024 * 1024;

let collect: (() => void) | undefined;
let readSinceCollect = 0;

/**
 * Process-wide: every server in this process calls `collector` after each 4 MiB its clients sent
 * (undefined: none, the default). It runs inside a socket read, so it should be quick.
 */
export function collectReadBuffersWith(collector: (() => void) | undefined): void {
  collect = collector;
  readSinceCollect = 0;
}

/** A client socket read `bytes`. */
export function countRead(bytes: number): void {
  readSinceCollect += bytes;
  if (readSinceCollect < READ_BYTES_PER_COLLECT || collect === undefined) return;
  readSinceCollect = 0;
  collect();
}
