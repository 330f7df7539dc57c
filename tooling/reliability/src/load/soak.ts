/**
 * The soak: mixed core and JetStream traffic at a moderate rate against one server process for a
 * while, sampling its RSS, its open files and request latency every second, then a least-squares
 * line through each series after the warm-up. A leak shows as a line that keeps rising.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { connect, type NatsConnection } from '@slipstream/client';
import { jetstream, jetstreamManager } from '@slipstream/jetstream';
import { Kvm } from '@slipstream/jetstream/kv';
import { rssBytes, startNatsServer } from '@slipstream/test-servers';
import { fitTrend, type Trend } from './trend.js';

export interface SoakSample {
  /** Seconds since the start. */
  readonly at: number;
  readonly rssMiB: number;
  /** Sockets and files the process holds open (see `heldFiles`). */
  readonly openFiles: number;
  /** Median round trip of the core requests in that second, in milliseconds (0 if none came back). */
  readonly latencyMs: number;
}

export interface SoakRun {
  readonly durationMs: number;
  readonly samples: readonly SoakSample[];
  /** Lines through the samples after the warm-up. */
  readonly rss: Trend;
  readonly openFiles: Trend;
  readonly latency: Trend;
  /** Operations done, for the report: core messages, requests, JetStream publishes, KV puts, acks. */
  readonly operations: Readonly<Record<string, number>>;
  /** Operations that failed (timeouts, errors). */
  readonly failures: number;
}

/** Samples before this share of the run are the warm-up (caches, JIT, the heap finding its size). */
const WARMUP_SHARE = 0.25;
const TICK_MS = 20;

export async function runSoak(options: { bin?: string; durationMs: number }): Promise<SoakRun> {
  const server = await startNatsServer({ bin: options.bin, jetstream: true });
  const pid = server.process.pid as number;
  const connections: NatsConnection[] = [];
  try {
    const open = async (name: string) => {
      const nc = await connect({ servers: server.url, name });
      connections.push(nc);
      return nc;
    };
    const [publisher, subscriber, service, jsConnection, consumerConnection] = await Promise.all(
      ['publisher', 'subscriber', 'service', 'jetstream', 'consumer'].map(open),
    );
    const jsm = await jetstreamManager(jsConnection);
    // Limits keep the store's size steady, so a growing RSS is not the data's.
    await jsm.streams.add({
      name: 'SOAK',
      subjects: ['soak.js.>'],
      storage: 'file',
      max_msgs: 5_000,
    });
    await jsm.consumers.add('SOAK', { durable_name: 'WORKER', ack_policy: 'explicit' });
    const kv = await new Kvm(jsConnection).create('SOAK', { history: 1 });
    const js = jetstream(jsConnection);

    const operations = {
      coreMessages: 0,
      requests: 0,
      jsPublishes: 0,
      kvPuts: 0,
      acks: 0,
      reconnects: 0,
    };
    let failures = 0;
    const fail = () => {
      failures++;
    };
    subscriber.subscribe('soak.core.>', { callback: () => void operations.coreMessages++ });
    service.subscribe('soak.svc', {
      callback: (_error, msg) => {
        msg.respond(msg.data);
      },
    });
    await Promise.all([subscriber.flush(), service.flush()]);
    const consumer = await (
      await jetstream(consumerConnection).consumers.get('SOAK', 'WORKER')
    ).consume();
    const consuming = (async () => {
      for await (const m of consumer) {
        m.ack();
        operations.acks++;
      }
    })();

    let latencies: number[] = [];
    const samples: SoakSample[] = [];
    const started = performance.now();
    let tick = 0;
    const deadline = started + options.durationMs;
    while (performance.now() < deadline) {
      tick++;
      // Per 20 ms tick: 10 core messages, a request, a JetStream publish; every 5th a KV put.
      for (let i = 0; i < 10; i++) publisher.publish(`soak.core.${i}`, 'core traffic');
      const requestStarted = performance.now();
      publisher.request('soak.svc', 'ping', { timeout: 5_000 }).then(() => {
        latencies.push(performance.now() - requestStarted);
        operations.requests++;
      }, fail);
      js.publish(`soak.js.${tick % 16}`, 'jetstream traffic').then(
        () => void operations.jsPublishes++,
        fail,
      );
      if (tick % 5 === 0)
        kv.put(`k${tick % 100}`, `${tick}`).then(() => void operations.kvPuts++, fail);
      // A connection opened and closed each second: a socket the server does not let go shows in the files.
      if (tick % 50 === 0) {
        connect({ servers: server.url, name: 'churn' })
          .then(async (nc) => {
            await nc.flush();
            await nc.close();
            operations.reconnects++;
          })
          .catch(fail);
        samples.push({
          at: (performance.now() - started) / 1_000,
          rssMiB: rssBytes(pid) / 2 ** 20,
          openFiles: heldFiles(pid),
          latencyMs: median(latencies),
        });
        latencies = [];
      }
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
    consumer.stop();
    await consuming.catch(() => {});
    const steady = samples.slice(Math.floor(samples.length * WARMUP_SHARE));
    const at = steady.map((s) => s.at / 60);
    const timed = steady.filter((s) => s.latencyMs > 0);
    return {
      durationMs: options.durationMs,
      samples,
      rss: fitTrend(
        at,
        steady.map((s) => s.rssMiB),
      ),
      openFiles: fitTrend(
        at,
        steady.map((s) => s.openFiles),
      ),
      latency: fitTrend(
        timed.map((s) => s.at / 60),
        timed.map((s) => s.latencyMs),
      ),
      operations,
      failures,
    };
  } finally {
    await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
    await server.stop();
  }
}

/**
 * The sockets and files a process has open: what a leak would pile up. A thread's own event loop
 * (its epoll, eventfd and pipes) is left out: slipstream-server's checkpoint worker ends after
 * 10 s without work and starts again when needed, which moved the whole count by four.
 */
function heldFiles(pid: number): number {
  let held = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed between the listing and the read
    }
    if (!target.startsWith('pipe:') && !target.startsWith('anon_inode:')) held++;
  }
  return held;
}

/** The middle value: one stall on a shared machine moves a mean, not a median. */
function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
