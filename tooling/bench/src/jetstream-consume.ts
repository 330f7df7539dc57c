/**
 * JetStream consumer benchmark (issue #10): slipstream-server against nats-server 2.9.10 in one
 * run, on a file stream of stored 128 B messages: pull consume with explicit acks, ordered replay,
 * KV put and get (awaited one at a time, and as a burst), server CPU per delivered message. Driven
 * by the official clients; then pull consume again driven by @slipstream/jetstream with each server
 * pinned to one core and this process to another.
 */
import { randomFillSync } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import * as officialJs from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect as officialConnect } from '@nats-io/transport-node';
import { cpuMeter } from '@slipstream/test-servers';
import { fdatasyncLatency } from './disk-sync-floor.js';
import { importIfBuilt } from './harness/optional.js';
import { CLIENT_CORE, SERVER_CORE, whilePinned } from './harness/pinning.js';
import { alternateRounds, pick, type RoundsResult, type Sample } from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import {
  type JetStreamServer,
  type JetStreamServerKind,
  startJetStreamServer,
} from './jetstream-servers.js';

const PAYLOAD = 128;
/** Stored messages consumed per round unless `--messages` says otherwise (about 1.5 minutes in all). */
export const DEFAULT_CONSUME_MESSAGES = 50_000;
/** Messages a consume keeps requested from the server: the clients' default ballpark. */
const PULL_BATCH = 500;
/** PubAcks outstanding while the stream is filled (not measured). */
const FILL_WINDOW = 256;
const KV_OPS = 2000;
/** write + fdatasync pairs timed for the floor under ours' synced KV put. */
const SYNC_PROBES = 200;
const KV_KEYS = 100;
const STREAM = 'CONSUME';
const SUBJECT = 'consume.bench';
const KINDS: readonly JetStreamServerKind[] = ['nats-server', 'slipstream always'];

// The calls both JetStream clients share (nats.js v3 names), all the workloads use.
export interface Connection {
  flush(): Promise<void>;
  close(): Promise<void>;
}
interface Consumer {
  consume(options: { max_messages: number }): Promise<
    AsyncIterable<{ ack(): void }> & {
      close(): Promise<unknown>;
    }
  >;
}
export interface JetStream {
  publish(subject: string, payload: Uint8Array): Promise<unknown>;
  consumers: { get(stream: string, durable?: string): Promise<Consumer> };
}
/** One JetStream client: how it connects and opens its JetStream context. */
export interface Client {
  connect(url: string): Promise<Connection>;
  jetstream(nc: Connection): JetStream;
}

const official: Client = {
  connect: (url) => officialConnect({ servers: url }),
  jetstream: (nc) => officialJs.jetstream(nc as never) as unknown as JetStream,
};

export async function loadOurClient(): Promise<Client | { skipped: string }> {
  const core = await importIfBuilt<{ connect(o: { servers: string }): Promise<Connection> }>(
    '@slipstream/client',
    ['connect'],
  );
  const js = await importIfBuilt<{ jetstream(nc: Connection): JetStream }>(
    '@slipstream/jetstream',
    ['jetstream'],
  );
  if ('skipped' in core) return core;
  if ('skipped' in js) return js;
  return {
    connect: (url) => core.module.connect({ servers: url }),
    jetstream: (nc) => js.module.jetstream(nc),
  };
}

/** A started server holding the filled stream, with its pid for /proc CPU readings. */
export interface Prepared {
  readonly server: JetStreamServer;
  readonly url: string;
  readonly pid: number;
}

async function start(kind: JetStreamServerKind, core?: number): Promise<Prepared> {
  const server = await startJetStreamServer(kind, { core });
  if ('skipped' in server) throw new Error(`${kind}: ${server.skipped}`);
  return { server, url: server.process.url, pid: server.process.child.pid! };
}

/** Starts a server (pinned when `core` is set) and stores `messages` random 128 B messages. */
export async function prepare(
  kind: JetStreamServerKind,
  messages: number,
  core?: number,
): Promise<Prepared> {
  const prepared = await start(kind, core);
  const { url } = prepared;
  const nc = await officialConnect({ servers: url });
  try {
    const jsm = await officialJs.jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: [SUBJECT], storage: 'file' as never });
    const js = officialJs.jetstream(nc);
    const payload = randomFillSync(new Uint8Array(PAYLOAD));
    await windowed(messages, FILL_WINDOW, () => js.publish(SUBJECT, payload));
    const stored = (await jsm.streams.info(STREAM)).state.messages;
    if (stored !== messages) throw new Error(`${kind} stored ${stored} of ${messages}`);
  } finally {
    await nc.close();
  }
  return prepared;
}

/** Runs `count` operations with at most `window` in flight; rejects on the first failure. */
async function windowed(count: number, window: number, op: () => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await op();
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, count) }, lane));
}

/** Rate of `units` done by `section`, and the server's CPU (its threads' run time) per unit. */
async function timed(pid: number, units: number, section: () => Promise<void>) {
  const cpu = cpuMeter(pid);
  const started = performance.now();
  await section();
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: units / seconds, cpuMicros: (cpu.seconds() * 1e6) / units };
}

/**
 * Reads `count` messages from a consume, acking each when `ack`; closes it after the last.
 * Returns the ms from the consume call to the first message.
 */
async function drain(consumer: Consumer, count: number, ack: boolean): Promise<number> {
  const started = performance.now();
  let firstMs = 0;
  const messages = await consumer.consume({ max_messages: PULL_BATCH });
  let received = 0;
  for await (const m of messages) {
    if (received === 0) firstMs = performance.now() - started;
    if (ack) m.ack();
    if (++received === count) break;
  }
  await messages.close();
  return firstMs;
}

let durables = 0;

/** A new durable explicit-ack consumer from the first message, consumed to the end, then deleted. */
export async function pullConsume(
  client: Client,
  target: Prepared,
  count: number,
): Promise<Sample> {
  const admin = await officialConnect({ servers: target.url });
  const nc = await client.connect(target.url);
  try {
    const jsm = await officialJs.jetstreamManager(admin);
    const durable = `D${++durables}`;
    await jsm.consumers.add(STREAM, {
      durable_name: durable,
      ack_policy: officialJs.AckPolicy.Explicit,
    });
    const consumer = await client.jetstream(nc).consumers.get(STREAM, durable);
    // The flush counts the last acks' handling in the section.
    const t = await timed(target.pid, count, async () => {
      await drain(consumer, count, true);
      await nc.flush();
    });
    const info = await jsm.consumers.info(STREAM, durable);
    if (info.delivered.stream_seq < count)
      throw new Error(`pull consume delivered ${info.delivered.stream_seq}`);
    await jsm.consumers.delete(STREAM, durable);
    return { pullMsgs: t.perSecond, pullCpuMicros: t.cpuMicros };
  } finally {
    await nc.close();
    await admin.close();
  }
}

/** An ordered consumer over the whole stream, read to the end. */
async function orderedReplay(client: Client, target: Prepared, count: number): Promise<Sample> {
  const nc = await client.connect(target.url);
  try {
    const consumer = await client.jetstream(nc).consumers.get(STREAM);
    let firstMs = 0;
    const t = await timed(target.pid, count, async () => {
      firstMs = await drain(consumer, count, false);
    });
    return { orderedMsgs: t.perSecond, orderedCpuMicros: t.cpuMicros, orderedFirstMs: firstMs };
  } finally {
    await nc.close();
  }
}

let buckets = 0;

/** KV puts and gets on KV_KEYS keys of a fresh file bucket: awaited one by one, then all at once. */
async function kvOps(target: Prepared): Promise<Sample> {
  const nc = await officialConnect({ servers: target.url });
  try {
    const kv = await new Kvm(nc).create(`bench_${++buckets}`, { storage: 'file' as never });
    const value = randomFillSync(new Uint8Array(PAYLOAD));
    const key = (i: number) => `k${i % KV_KEYS}`;
    const get = async (i: number) => {
      if ((await kv.get(key(i)))?.value.length !== PAYLOAD) throw new Error(`kv get ${key(i)}`);
    };
    const each = (op: (i: number) => Promise<unknown>) => async () => {
      for (let i = 0; i < KV_OPS; i++) await op(i);
    };
    const burst = (op: (i: number) => Promise<unknown>) => async () => {
      await Promise.all(Array.from({ length: KV_OPS }, (_, i) => op(i)));
    };
    const put = (i: number) => kv.put(key(i), value);
    const sample = {
      kvPut: (await timed(target.pid, KV_OPS, each(put))).perSecond,
      kvGet: (await timed(target.pid, KV_OPS, each(get))).perSecond,
      kvPutBurst: (await timed(target.pid, KV_OPS, burst(put))).perSecond,
      kvGetBurst: (await timed(target.pid, KV_OPS, burst(get))).perSecond,
    };
    await kv.destroy();
    return sample;
  } finally {
    await nc.close();
  }
}

/** Both servers, filled, through `phase`; stopped after. */
async function withPreparedServers<T>(
  messages: number,
  core: number | undefined,
  phase: (nats: Prepared, ours: Prepared) => Promise<T>,
): Promise<T> {
  const [nats, ours] = [
    await prepare(KINDS[0], messages, core),
    await prepare(KINDS[1], messages, core),
  ];
  try {
    return await phase(nats, ours);
  } finally {
    await Promise.all([nats.server.stop(), ours.server.stop()]);
  }
}

function compare(
  rounds: number,
  label: string,
  nats: Prepared,
  ours: Prepared,
  workload: (target: Prepared) => Promise<Sample>,
): Promise<RoundsResult> {
  return alternateRounds(
    { rounds, label, warmup: true },
    { name: 'nats-server', measure: () => workload(nats) },
    { name: 'slipstream', measure: () => workload(ours) },
  );
}

export async function jetstreamConsumeBenchmark(options: {
  rounds: number;
  messages?: number;
}): Promise<{ render(): string }> {
  const count = options.messages ?? DEFAULT_CONSUME_MESSAGES;
  const { rounds } = options;
  const load = () => loadavg()[0].toFixed(2);
  const officialTable = new RatioTable(
    'JetStream consumers and KV: slipstream-server vs nats-server 2.9.10, driven by @nats-io/jetstream and @nats-io/kv 3.4',
    'nats-server',
    'slipstream',
  );
  const loadBefore = load();
  await withPreparedServers(count, undefined, async (nats, ours) => {
    const pull = await compare(rounds, 'pull consume', nats, ours, (t) =>
      pullConsume(official, t, count),
    );
    const ordered = await compare(rounds, 'ordered replay', nats, ours, (t) =>
      orderedReplay(official, t, count),
    );
    const kv = await compare(rounds, 'KV put/get', nats, ours, kvOps);
    // Ours confirms a put once it is synced; nats-server syncs every 2 minutes. The same
    // trade-off on our side shows what the sync costs.
    const lazy = await start('slipstream lazy');
    const kvLazy = await compare(rounds, 'KV put/get, ours lazy', nats, lazy, kvOps).finally(() =>
      lazy.server.stop(),
    );
    const row = (
      result: RoundsResult,
      key: string,
      name: string,
      unit: string,
      target?: number,
    ) => {
      const better = unit.includes('CPU') || unit === 'ms' ? 'lower' : 'higher';
      officialTable.add({ name, unit, better, target, ...pick(result, key) });
    };
    row(pull, 'pullMsgs', 'pull consume + explicit ack', 'msgs/s', 1);
    row(pull, 'pullCpuMicros', 'server CPU, pull consume', 'CPU µs per delivered msg', 1.5);
    row(ordered, 'orderedMsgs', 'ordered replay', 'msgs/s', 1);
    row(ordered, 'orderedCpuMicros', 'server CPU, ordered replay', 'CPU µs per delivered msg', 1.5);
    row(ordered, 'orderedFirstMs', 'ordered replay, consume() to first message', 'ms');
    // An awaited put in ours' default mode waits for its own fdatasync: at most one put per
    // sync, whatever the server does. The like-for-like figure is the lazy one.
    const sync = fdatasyncLatency(SYNC_PROBES);
    const syncCeiling = Math.round(1e6 / sync.p50Micros).toLocaleString('en');
    row(kvLazy, 'kvPut', 'KV put (awaited one at a time), ours with sync_interval 2m', 'ops/s', 1);
    row(
      kv,
      'kvPut',
      `KV put (awaited one at a time), ours syncing always: disk floor fdatasync p50 ${Math.round(sync.p50Micros)} µs, ≤ ${syncCeiling} puts/s`,
      'ops/s',
    );
    row(kv, 'kvGet', 'KV get (awaited one at a time)', 'ops/s', 1);
    row(kvLazy, 'kvPutBurst', `KV put (burst of ${KV_OPS}), ours with sync_interval 2m`, 'ops/s');
    row(kv, 'kvPutBurst', `KV put (burst of ${KV_OPS}), ours syncing always`, 'ops/s');
    row(kv, 'kvGetBurst', `KV get (burst of ${KV_OPS})`, 'ops/s');
  });
  officialTable.note(
    `One file stream per server holding ${count.toLocaleString('en')} random ${PAYLOAD} B messages (filled before the rounds, not measured). Pull consume: per round a new durable consumer (ack explicit) read to the end with consume({ max_messages: ${PULL_BATCH} }), each message acked, then a flush. Ordered replay: js.consumers.get(stream).consume() over the same messages. KV: a fresh file bucket per round, ${KV_OPS} puts then ${KV_OPS} gets on ${KV_KEYS} keys, each awaited; then the same as bursts with every operation in flight. Server CPU: the run time of its threads (/proc/<pid>/task/*/schedstat) around the section, per delivered message. Servers and client unpinned; ours syncs every write before confirming it ("always", its default), nats-server every 2 minutes, so the "sync_interval 2m" rows run a second slipstream-server set to nats-server's trade-off: those carry the KV put target. An awaited put syncing always cannot beat one fdatasync of the stores' disk (${SYNC_PROBES} write + fdatasync pairs of 4 KiB timed after the rounds, src/disk-sync-floor.ts).`,
  );
  officialTable.note(
    `Load average (1 min) ${loadBefore} before this table, ${load()} after: other jobs share the ${cpus().length} cores.`,
  );

  const pinnedTable = new RatioTable(
    `JetStream pull consume: each server pinned to core ${SERVER_CORE}, driven by @slipstream/jetstream on core ${CLIENT_CORE}`,
    'nats-server',
    'slipstream',
  );
  const ourClient = await loadOurClient();
  if ('skipped' in ourClient) {
    pinnedTable.note(`skipped: ${ourClient.skipped}`);
    return { render: () => `${officialTable.render()}\n\n${pinnedTable.render()}` };
  }
  const pinnedLoadBefore = load();
  await whilePinned(CLIENT_CORE, () =>
    withPreparedServers(count, SERVER_CORE, async (nats, ours) => {
      const pull = await compare(rounds, 'pinned pull consume', nats, ours, (t) =>
        pullConsume(ourClient, t, count),
      );
      pinnedTable.add({
        name: 'pull consume + explicit ack',
        unit: 'msgs/s',
        better: 'higher',
        target: 0.7,
        ...pick(pull, 'pullMsgs'),
      });
      pinnedTable.add({
        name: 'server CPU, pull consume',
        unit: 'CPU µs per delivered msg',
        better: 'lower',
        ...pick(pull, 'pullCpuMicros'),
      });
    }),
  );
  pinnedTable.note(
    `Same stream and pull consume as above; every server runs under \`taskset -c ${SERVER_CORE}\`, this process under \`taskset -a -cp ${CLIENT_CORE}\`. Load average (1 min) ${pinnedLoadBefore} before this table, ${load()} after.`,
  );
  return { render: () => `${officialTable.render()}\n\n${pinnedTable.render()}` };
}
