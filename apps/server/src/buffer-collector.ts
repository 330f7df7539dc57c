import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Less than this much buffer memory more than after the last collection: nothing to do. */
const GROWTH_BYTES = 4 * 1024 * 1024;

/**
 * The installed command's answer to the server's request for a collection (see the server's
 * buffer-collection.ts): a minor collection, which frees buffers that died young, when buffer
 * memory has grown since the last one; where the server's own garbage already brings collections,
 * there is nothing to do. A minor collection costs a fraction of a millisecond; in a burst of small
 * publishes nobody took, it kept the resident size 15-20 MiB lower (peak 95 → 74-80 MiB), and a
 * 50 MiB object streamed to a reader 33-35 MiB above its start instead of 46-52.
 */
export function bufferCollector(): () => void {
  // V8 gives `gc` only to contexts made while --expose-gc is set: this one is made for that alone.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
  setFlagsFromString('--no-expose-gc');
  // Node's count of live buffer memory: V8's own figure for it only falls once its sweeper ran.
  const bufferBytes = () => process.memoryUsage().arrayBuffers;
  let afterLast = bufferBytes();
  return () => {
    const bytes = bufferBytes();
    if (bytes - afterLast >= GROWTH_BYTES) {
      gc({ type: 'minor' });
      afterLast = bufferBytes();
    } else {
      afterLast = Math.min(afterLast, bytes);
    }
  };
}
