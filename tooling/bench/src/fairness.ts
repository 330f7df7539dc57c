/**
 * Fairness benchmark (issue #14, item 1): while one publisher floods a subject with 20
 * subscribers, how long does a request on an unrelated subject take? A server that lets one
 * connection's burst hold its event loop answers late; nats-server serves every connection
 * alongside. Both servers in the same run, ratio ours / nats-server.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { cpuMeter } from '@slipstream/test-servers';
import { pick } from './harness/rounds.js';
import { percentile } from './harness/stats.js';
import { RatioTable } from './harness/table.js';
import type { Target } from './nats-workloads.js';
import { serverRounds, withServers } from './server-pair.js';

/** The load fairness-load.ts generates, passed to it as JSON. */
export interface FairnessLoad {
  readonly subject: string;
  readonly subscribers: number;
  readonly size: number;
  /**
   * Published bytes the publisher may run ahead of its subscribers' deliveries. Large (each byte
   * goes to every subscriber), so the server always has a backlog to read: the publisher runs at
   * full speed, bounded only so that nobody turns into a slow consumer at the default max_pending.
   */
  readonly windowBytes: number;
}

export interface FairnessLoadResult {
  /** Messages published while the requests were timed. */
  readonly published: number;
  /** From the start of publishing until every subscriber had every message. */
  readonly seconds: number;
}

const LOAD: FairnessLoad = {
  subject: 'fair.load',
  subscribers: 20,
  size: 128,
  windowBytes: 2 * 1024 * 1024,
};
const LOAD_MS = 5_000;
const REQUEST_SIZE = 16;
/** A load process that has not finished this long after its window is stuck: fail the round. */
const LOAD_TIMEOUT_MS = 60_000;
const loadScript = new URL('./fairness-load.js', import.meta.url);

export async function fairnessBenchmark(options: { rounds: number }): Promise<RatioTable> {
  const table = new RatioTable(
    'Fairness: slipstream-server vs nats-server 2.9.10, a request beside a flooding publisher',
    'nats-server',
    'slipstream',
  );
  const skipped = await withServers(async (servers) => {
    const result = await serverRounds(
      servers,
      { rounds: options.rounds, label: 'fairness' },
      unrelatedRequests,
    );
    table.add({
      name: 'unrelated request p50',
      unit: 'µs',
      better: 'lower',
      ...pick(result, 'p50Micros'),
    });
    table.add({
      name: 'unrelated request p99',
      unit: 'µs',
      better: 'lower',
      target: 1.5,
      ...pick(result, 'p99Micros'),
    });
    table.add({
      name: 'publisher beside them',
      unit: 'msgs/s',
      better: 'higher',
      ...pick(result, 'msgsPerSecond'),
    });
    table.add({
      name: 'server CPU',
      unit: 's per 1M published msgs',
      better: 'lower',
      ...pick(result, 'serverCpuSecondsPerMillion'),
    });
  });
  if (skipped) table.note(`slipstream side skipped: ${skipped}`);
  table.note(
    `Per round: a separate process runs one publisher of ${LOAD.size} B messages to ${LOAD.subscribers} subscribers on one subject for ${LOAD_MS / 1000} s, all raw sockets that parse nothing (pre-encoded PUB batches out, delivered bytes counted), the publisher at most ${LOAD.windowBytes / 1024 / 1024} MiB ahead of the deliveries; meanwhile this process sends sequential ${REQUEST_SIZE} B requests (official client) to a responder on another subject and times each. msgs/s is the publisher's messages over the time until all were delivered; server CPU covers the same span. Issue #14 target: p99 at most 1.5x nats-server's, with the publisher down by at most 10 % against our server before fair turns.`,
  );
  return table;
}

/** One round: the load in a child process, requests timed here while it runs. */
export async function unrelatedRequests(target: Target) {
  const responder = await target.connect(target.url);
  const requester = await target.connect(target.url);
  const load = fork(loadScript, [target.url, JSON.stringify(LOAD)], { stdio: 'inherit' });
  try {
    const payload = new Uint8Array(REQUEST_SIZE);
    responder.subscribe('fair.request', { callback: (_error, msg) => msg.respond(payload) });
    await responder.flush();
    // The first request sets up the requester's reply inbox subscription: keep it out of the figures.
    for (let i = 0; i < 100; i++)
      await requester.request('fair.request', payload, { timeout: 5000 });
    await once(load, 'message');

    const serverCpu = cpuMeter(target.serverPid!);
    const finished = once(load, 'message', {
      signal: AbortSignal.timeout(LOAD_MS + LOAD_TIMEOUT_MS),
    });
    load.send({ durationMs: LOAD_MS });
    const end = performance.now() + LOAD_MS;
    const micros: number[] = [];
    while (performance.now() < end) {
      const start = performance.now();
      await requester.request('fair.request', payload, { timeout: 10_000 });
      micros.push((performance.now() - start) * 1000);
    }
    const [result] = (await finished) as [FairnessLoadResult];
    return {
      p50Micros: percentile(micros, 0.5),
      p99Micros: percentile(micros, 0.99),
      msgsPerSecond: result.published / result.seconds,
      serverCpuSecondsPerMillion: (serverCpu.seconds() / result.published) * 1e6,
    };
  } finally {
    if (load.exitCode === null) {
      const exited = once(load, 'exit');
      load.kill();
      await exited;
    }
    await Promise.all([responder.close(), requester.close()]);
  }
}
