import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

// V8 doubles the young generation each time a scavenge finds it busy, up to 16 MiB semi-spaces
// on 64-bit, and rarely gives it back: a server that once saw a burst holds that memory idle, and
// over a long run the resident size climbs with it (28 MiB in a 10-minute soak). Held at its
// first 1 MiB, it promoted so much that pull consume spent twice the time collecting garbage;
// 2 MiB semi-spaces let nearly all of a turn's objects (frames, payload views, PubAcks) die young.
// `--max-semi-space-size` is only read when the heap is made, before any code of ours runs; the
// growth factor is read at each growth, so once the young generation has grown to the size we
// want, setting the factor to 1 holds it there.
const HELD_SEMI_SPACE_BYTES = 2 * 1024 * 1024;

const hold = () => setFlagsFromString('--semi-space-growth-factor=1');
let held = false;

function newSpaceBytes(): number {
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return newSpace?.space_size ?? 0;
}

// Growth only happens in a scavenge, so looking after each collection finds it the turn it came.
const growthWatch = new PerformanceObserver(() => {
  if (newSpaceBytes() < 2 * HELD_SEMI_SPACE_BYTES) return;
  hold();
  held = true;
  growthWatch.disconnect();
});
growthWatch.observe({ entryTypes: ['gc'] });

// Node puts V8's flags back as they were on the command line whenever it starts a worker thread
// (the store's idle checkpoints, bcrypt), so the hold is set again once each one is running.
process.on('worker', (worker) =>
  worker.once('online', () => {
    if (held) hold();
  }),
);
