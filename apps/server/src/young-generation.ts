import { setFlagsFromString } from 'node:v8';

// V8 doubles the young generation each time a scavenge finds it busy, up to 32 MiB of semi-spaces
// on 64-bit, and rarely gives it back: a server that once saw a burst holds that memory idle, and
// over a long run the resident size climbs with it. A server's short-lived objects (frames,
// payload views, PubAcks) die within one turn, so the first 1 MiB semi-space already catches them.
// `--max-semi-space-size` is only read when the heap is made, before any code of ours runs; the
// growth factor is read at each growth, so setting it to 1 here holds the young generation where
// it starts.
const holdYoungGeneration = () => setFlagsFromString('--semi-space-growth-factor=1');
holdYoungGeneration();
// Node puts V8's flags back as they were on the command line whenever it starts a worker thread
// (the store's idle checkpoints, bcrypt), so the hold is set again once each one is running.
process.on('worker', (worker) => worker.once('online', holdYoungGeneration));
