/**
 * The NATS workloads shared by the server and client benchmarks. Each runs one bounded measurement
 * through a client with the nats.js API shape and returns its figures; the server benchmark varies
 * the server under a fixed client, the client benchmark varies the client under a fixed server.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { cpuMeter, rssBytes } from '@slipstream/test-servers';
import { percentile } from './harness/stats.js';

/** The subset of the nats.js v3 connection API the workloads use; ours follows the same names. */
export interface BenchConnection {
  publish(subject: string, payload: Uint8Array): void;
  subscribe(
    subject: string,
    options: { queue?: string; callback: (error: Error | null, msg: BenchMsg) => void },
  ): unknown;
  request(subject: string, payload: Uint8Array, options: { timeout: number }): Promise<unknown>;
  flush(): Promise<void>;
  close(): Promise<void>;
}
export interface BenchMsg {
  readonly data: Uint8Array;
  respond(payload: Uint8Array): boolean;
}
export type Connector = (url: string) => Promise<BenchConnection>;

/** Where the workload runs: the client library, the server's URL and, for CPU figures, its process. */
export interface Target {
  readonly connect: Connector;
  readonly url: string;
  readonly serverPid?: number;
  /** Where pub→sub's subscribers connect when not to `url`: another member of a cluster. */
  readonly subscriberUrl?: string;
}

/** Messages per measured round: bounded, and long enough (≥ 0.2 s) to rise above 10 ms CPU ticks. */
export const COUNTS = {
  publishOnly: 1_000_000,
  pubSub16: 500_000,
  pubSub1k: 200_000,
  fanOut: 200_000,
  queueGroup: 500_000,
  requests: 5_000,
  idleConnections: 1_000,
  subscriptions: 10_000,
} as const;

const WORKLOAD_NAMES: Record<keyof typeof COUNTS, string> = {
  publishOnly: 'publish-only',
  pubSub16: 'pub→sub 16 B',
  pubSub1k: 'pub→sub 1 KiB',
  fanOut: 'fan-out (published; ×4 delivered)',
  queueGroup: 'queue group',
  requests: 'request/reply (sequential, after 100 unrecorded)',
  idleConnections: 'idle connections',
  subscriptions: 'subscriptions',
};

/** How the named workloads were shaped, for the notes under a table. */
export function describeCounts(workloads: readonly (keyof typeof COUNTS)[]): string {
  const count = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n));
  const list = workloads.map((w) => `${WORKLOAD_NAMES[w]} ${count(COUNTS[w])}`).join(', ');
  return `Per round: ${list}. Publishers yield to the event loop every ${PUBLISH_BATCH.toLocaleString('en')} messages and stay within ${WINDOW_BYTES / 1024 / 1024} MiB of their subscribers.`;
}

/** Messages published before the publisher yields to the event loop, letting sockets drain. */
const PUBLISH_BATCH = 1000;
/** Deliveries a publisher may run ahead of its subscribers, so no one turns into a slow consumer. */
const WINDOW_BYTES = 4 * 1024 * 1024;
/** No progress for this long means messages were lost: fail instead of waiting forever. */
const STALL_MS = 30_000;

/** Publishes `count` messages with nobody subscribed, until the server has answered a flush. */
export async function publishOnly(target: Target, count: number, size: number) {
  const nc = await target.connect(target.url);
  try {
    const payload = new Uint8Array(size);
    await nc.flush();
    const meter = startMeter(target);
    for (let published = 0; published < count; ) {
      const batchEnd = Math.min(count, published + PUBLISH_BATCH);
      for (; published < batchEnd; published++) nc.publish('bench.publish', payload);
      await nextTurn();
    }
    await nc.flush();
    return meter.stop(count);
  } finally {
    await nc.close();
  }
}

export interface PubSubShape {
  readonly count: number;
  readonly size: number;
  /** Subscriber connections (fan-out when more than one). */
  readonly subscribers: number;
  /** When set, the subscribers form this queue group and each message reaches one of them. */
  readonly queue?: string;
  /** The subject published and subscribed to, `bench.pubsub` unless set (one per pair in a cluster). */
  readonly subject?: string;
}

/**
 * One publisher connection, `subscribers` subscriber connections on the same subject; ends when every
 * expected delivery arrived. msgsPerSecond counts published messages.
 */
export async function pubSub(target: Target, shape: PubSubShape) {
  const subject = shape.subject ?? 'bench.pubsub';
  const publisher = await target.connect(target.url);
  const subscribers = await Promise.all(
    Array.from({ length: shape.subscribers }, () =>
      target.connect(target.subscriberUrl ?? target.url),
    ),
  );
  try {
    const deliveries = new Counter();
    for (const nc of subscribers) {
      nc.subscribe(subject, { queue: shape.queue, callback: () => deliveries.add() });
      await nc.flush();
    }
    if (target.subscriberUrl !== undefined) {
      for (const nc of subscribers) await interestArrived(publisher, nc, subject);
    }
    const perMessage = shape.queue ? 1 : shape.subscribers;
    const window = Math.max(PUBLISH_BATCH * 2, Math.floor(WINDOW_BYTES / (shape.size + 40)));
    const payload = new Uint8Array(shape.size);
    const meter = startMeter(target);
    for (let published = 0; published < shape.count; ) {
      if (published * perMessage - deliveries.value > window) {
        await deliveries.reach(published * perMessage - window / 2);
        continue;
      }
      const batchEnd = Math.min(shape.count, published + PUBLISH_BATCH);
      for (; published < batchEnd; published++) publisher.publish(subject, payload);
      await nextTurn();
    }
    await deliveries.reach(shape.count * perMessage);
    return meter.stop(shape.count);
  } finally {
    await Promise.all([publisher, ...subscribers].map((nc) => nc.close()));
  }
}

/**
 * Resolves once the publisher's server knows of the subscriber's interest, which reaches it over a
 * route some time after the subscriber's flush. A route carries its messages in order, so a probe
 * subscribed after `subject` that gets through proves `subject`'s interest arrived before it.
 */
async function interestArrived(
  publisher: BenchConnection,
  subscriber: BenchConnection,
  subject: string,
) {
  const probe = `${subject}.interest`;
  let arrived = false;
  subscriber.subscribe(probe, {
    callback: () => {
      arrived = true;
    },
  });
  await subscriber.flush();
  for (const deadline = Date.now() + STALL_MS; !arrived; ) {
    if (Date.now() > deadline)
      throw new Error(`${subject}: the subscriber's interest never reached the publisher's server`);
    publisher.publish(probe, new Uint8Array(0));
    await publisher.flush();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Sequential requests to one responder on another connection; latency of each round trip. */
export async function requestReply(target: Target, count: number, size: number) {
  const responder = await target.connect(target.url);
  const requester = await target.connect(target.url);
  try {
    const payload = new Uint8Array(size);
    responder.subscribe('bench.request', { callback: (_error, msg) => msg.respond(payload) });
    await responder.flush();
    // The first request sets up the requester's reply inbox subscription: keep it out of the figures.
    for (let i = 0; i < 100; i++)
      await requester.request('bench.request', payload, { timeout: 5000 });
    const micros: number[] = [];
    const meter = startMeter(target);
    for (let i = 0; i < count; i++) {
      const start = process.hrtime.bigint();
      await requester.request('bench.request', payload, { timeout: 5000 });
      micros.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    return {
      ...meter.stop(count),
      p50Micros: percentile(micros, 0.5),
      p99Micros: percentile(micros, 0.99),
    };
  } finally {
    await Promise.all([responder.close(), requester.close()]);
  }
}

/** Resident memory of the server process while `count` connections sit idle. */
export async function idleConnections(target: Target, count: number) {
  if (target.serverPid === undefined)
    throw new Error('idleConnections needs the server process id');
  const connections: BenchConnection[] = [];
  try {
    // In waves: a thousand simultaneous handshakes would measure the accept queue, not memory.
    while (connections.length < count) {
      const wave = Math.min(50, count - connections.length);
      connections.push(
        ...(await Promise.all(Array.from({ length: wave }, () => target.connect(target.url)))),
      );
    }
    await Promise.all(connections.map((nc) => nc.flush()));
    return { rssBytes: rssBytes(target.serverPid) };
  } finally {
    await Promise.all(connections.map((nc) => nc.close()));
  }
}

/** Heap and buffer memory this process holds for `count` subscriptions on one connection. */
export async function subscriptionMemory(target: Target, count: number) {
  const nc = await target.connect(target.url);
  try {
    await nc.flush();
    const before = await settledMemory();
    for (let i = 0; i < count; i++) nc.subscribe(`bench.subs.${i}`, { callback: () => {} });
    await nc.flush();
    return { subscriptionsBytes: (await settledMemory()) - before };
  } finally {
    await nc.close();
  }
}

/**
 * heapUsed + external once garbage collection stops freeing anything. One forced GC is not enough:
 * sockets and connections closed by the previous round release their memory over a few turns, and
 * counting that release would make a round's figure small or even negative.
 */
async function settledMemory(): Promise<number> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect)
    throw new Error('subscriptionMemory needs node --expose-gc (the bench script passes it)');
  let last = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 10; attempt++) {
    collect();
    await nextTurn();
    const usage = process.memoryUsage();
    const now = usage.heapUsed + usage.external;
    if (Math.abs(now - last) < 64 * 1024) return now;
    last = now;
  }
  return last;
}

/** Wall time, this process's CPU and (when known) the server's CPU over one measured section. */
function startMeter(target: Target) {
  const start = process.hrtime.bigint();
  const clientCpu = process.cpuUsage();
  const serverCpu = target.serverPid === undefined ? undefined : cpuMeter(target.serverPid);
  return {
    stop(messages: number) {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const client = process.cpuUsage(clientCpu);
      const figures: Record<string, number> = {
        msgsPerSecond: messages / seconds,
        clientCpuMicrosPerMsg: (client.user + client.system) / messages,
      };
      if (serverCpu) figures.serverCpuSecondsPerMillion = (serverCpu.seconds() / messages) * 1e6;
      return figures;
    },
  };
}

/** Counts deliveries and lets the publisher wait until a number is reached. */
class Counter {
  value = 0;
  private target = Number.POSITIVE_INFINITY;
  private wake: (() => void) | undefined;

  add(): void {
    if (++this.value >= this.target) this.wake?.();
  }

  async reach(target: number): Promise<void> {
    while (this.value < target) {
      const seen = this.value;
      const stalled = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), STALL_MS);
        this.target = target;
        this.wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      this.wake = undefined;
      this.target = Number.POSITIVE_INFINITY;
      if (stalled && this.value === seen) {
        throw new Error(
          `deliveries stalled at ${this.value} of ${target} for ${STALL_MS / 1000} s: messages lost`,
        );
      }
    }
  }
}
