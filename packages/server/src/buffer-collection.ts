/**
 * Much of what the server handles sits in buffers outside the JavaScript heap, which only a
 * garbage collection frees once dead: each socket read (Node allocates one per read), and what
 * it sends out (an object's chunks read from the store, copies for TLS). A server that moves
 * bytes fast while allocating few objects (a publisher whose messages nobody takes, a large
 * object streamed to a reader) runs few collections: dead buffers piled up to V8's limit for
 * external memory (about 64 MiB) before a full collection took them, and the process kept the
 * pages. A host that can ask V8 for a collection (the installed command can) registers it here;
 * the server calls it each time its clients' traffic, in and out, has grown by
 * BYTES_PER_COLLECT.
 */
const BYTES_PER_COLLECT = 4 * 1024 * 1024;

let collect: (() => void) | undefined;
let sinceCollect = 0;

/**
 * Process-wide: every server in this process calls `collector` after each 4 MiB its clients send
 * or are sent (undefined: none, the default). It runs inside a socket read or an output flush, so
 * it should be quick.
 */
export function collectBuffersWith(collector: (() => void) | undefined): void {
  collect = collector;
  sinceCollect = 0;
}

/** A client socket read `bytes`, or a client's output of `bytes` was flushed. */
export function countTraffic(bytes: number): void {
  sinceCollect += bytes;
  if (sinceCollect < BYTES_PER_COLLECT || collect === undefined) return;
  sinceCollect = 0;
  collect();
}
