import type { NatsConnection } from '@slipstream/client';
import type { JetStreamClient } from '@slipstream/jetstream';
import type { Progress } from '../progress.js';
import type { ClientRun } from './results.js';

// What one benchmark client does with its own connection; each resolves with what it measured.

/** Messages between flushes: enough to keep the socket busy, few enough to bound the buffer. */
const flushEvery = 1000;

export async function publishMessages(
  nc: NatsConnection,
  subject: string,
  payload: Uint8Array,
  count: number,
  progress: Progress,
  signal: AbortSignal,
): Promise<ClientRun> {
  const start = performance.now();
  let sent = 0;
  while (sent < count && !signal.aborted) {
    const batch = Math.min(flushEvery, count - sent);
    for (let i = 0; i < batch; i++) nc.publish(subject, payload);
    await nc.flush();
    sent += batch;
    progress.increment(batch);
  }
  return { msgs: sent, bytes: sent * payload.length, start, end: performance.now(), latencies: [] };
}

/** Counts what arrives from its first message until `count` have come (or Ctrl-C). */
export function receiveMessages(
  nc: NatsConnection,
  subject: string,
  count: number,
  progress: Progress,
  signal: AbortSignal,
): { ready: Promise<void>; run: Promise<ClientRun> } {
  const run: ClientRun = { msgs: 0, bytes: 0, start: 0, end: 0, latencies: [] };
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const sub = nc.subscribe(subject, {
    max: count,
    callback: (_error, msg) => {
      run.end = performance.now();
      if (run.msgs === 0) run.start = run.end;
      run.msgs++;
      run.bytes += msg.data.length;
      progress.increment();
      if (run.msgs === count) finish();
    },
  });
  signal.addEventListener('abort', finish, { once: true });
  return {
    ready: nc.flush(),
    run: done.then(() => {
      sub.unsubscribe();
      return run;
    }),
  };
}

/**
 * Runs `once` (a request, a publish to a stream) `count` times one after another, timing each
 * until it is answered.
 */
export async function timedRounds(
  once: () => Promise<unknown>,
  count: number,
  payloadSize: number,
  progress: Progress,
  signal: AbortSignal,
): Promise<ClientRun> {
  const run: ClientRun = { msgs: 0, bytes: 0, start: performance.now(), end: 0, latencies: [] };
  while (run.msgs < count && !signal.aborted) {
    const sent = performance.now();
    await once();
    run.latencies.push(performance.now() - sent);
    run.msgs++;
    run.bytes += payloadSize;
    progress.increment();
  }
  run.end = performance.now();
  return run;
}

/**
 * Fetches `count` messages from a pull consumer in batches of what is still wanted (so clients
 * sharing the consumer never hold each other's messages), acknowledging each. A fetch that
 * brings nothing ends the run early: the stream has no more.
 */
export async function consumeMessages(
  js: JetStreamClient,
  stream: string,
  name: string,
  count: number,
  expires: number,
  progress: Progress,
  signal: AbortSignal,
): Promise<ClientRun> {
  const run: ClientRun = {
    msgs: 0,
    bytes: 0,
    start: performance.now(),
    end: performance.now(),
    latencies: [],
  };
  const consumer = await js.consumers.get(stream, name);
  while (run.msgs < count && !signal.aborted) {
    const batch = await consumer.fetch({ max_messages: Math.min(count - run.msgs, 500), expires });
    const before = run.msgs;
    for await (const msg of batch) {
      run.end = performance.now();
      if (run.msgs === 0) run.start = run.end;
      run.msgs++;
      run.bytes += msg.data.length;
      msg.ack();
      progress.increment();
    }
    if (run.msgs === before) break;
  }
  return run;
}
