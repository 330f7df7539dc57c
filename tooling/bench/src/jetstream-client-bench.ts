/**
 * JetStream client benchmark (issue #11): @slipstream/jetstream (with its kv and objectstore
 * entry points) against the official @nats-io/jetstream, @nats-io/kv and @nats-io/obj, both on
 * the same nats-server 2.9.10 in one run; ratio ours / official.
 */
import { randomBytes } from 'node:crypto';
import * as officialJs from '@nats-io/jetstream';
import * as officialKv from '@nats-io/kv';
import * as officialObj from '@nats-io/obj';
import { connect as officialConnect } from '@nats-io/transport-node';
import { cpuMeter } from '@slipstream/test-servers';
import { importIfBuilt, type Loaded, sideOf } from './harness/optional.js';
import {
  addThroughputRows,
  alternateRounds,
  pick,
  type Sample,
  type Side,
} from './harness/rounds.js';
import { RatioTable } from './harness/table.js';
import { startJetStreamServer } from './jetstream-servers.js';

// The parts of both clients' APIs the workloads drive: the names nats.js v3 and ours share.
interface Conn {
  publish(subject: string, payload: Uint8Array): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}
interface Message {
  ack(): void;
}
interface Messages extends AsyncIterable<Message> {
  close(): Promise<unknown>;
}
interface Js {
  publish(subject: string, payload: Uint8Array): Promise<{ seq: number }>;
  consumers: {
    get(
      stream: string,
      name: string,
    ): Promise<{
      fetch(o: { max_messages: number; expires: number }): Promise<Messages>;
      consume(o: { max_messages: number }): Promise<Messages>;
    }>;
  };
}
interface Jsm {
  streams: {
    add(config: { name: string; subjects: string[]; storage: 'memory' }): Promise<unknown>;
    info(name: string): Promise<{ state: { messages: number } }>;
    delete(name: string): Promise<unknown>;
  };
  consumers: {
    add(stream: string, config: { durable_name: string; ack_policy: 'explicit' }): Promise<unknown>;
  };
}
interface Kv {
  put(key: string, value: Uint8Array): Promise<number>;
  get(key: string): Promise<{ value: Uint8Array } | null>;
  destroy(): Promise<boolean>;
}
interface ObjStore {
  putBlob(meta: { name: string }, data: Uint8Array): Promise<unknown>;
  getBlob(name: string): Promise<Uint8Array | null>;
  destroy(): Promise<boolean>;
}

/** One client under test: how to connect, and its JetStream, KV and object store entry points. */
interface JsClient {
  connect(url: string): Promise<Conn>;
  jetstream(nc: Conn): Js;
  jetstreamManager(nc: Conn): Promise<Jsm>;
  kv(js: Js, bucket: string): Promise<Kv>;
  objectStore(js: Js, bucket: string): Promise<ObjStore>;
  /** `count` publishes of `payload` with at most `window` PubAcks outstanding, all awaited. */
  asyncPublish(
    nc: Conn,
    subject: string,
    payload: Uint8Array,
    count: number,
    window: number,
  ): Promise<void>;
}

/**
 * nats.js v3 has no windowed async publisher that works before nats-server 2.12, so its
 * async publish is what its users write: `js.publish` promises not awaited one by one, at
 * most `window` outstanding.
 */
const official: JsClient = {
  connect: (url) => officialConnect({ servers: url }) as Promise<unknown> as Promise<Conn>,
  jetstream: (nc) => officialJs.jetstream(nc as never) as unknown as Js,
  jetstreamManager: (nc) =>
    officialJs.jetstreamManager(nc as never) as Promise<unknown> as Promise<Jsm>,
  kv: (js, bucket) =>
    new officialKv.Kvm(js as never).create(bucket, {
      storage: 'memory',
    }) as Promise<unknown> as Promise<Kv>,
  objectStore: (js, bucket) =>
    new officialObj.Objm(js as never).create(bucket, {
      storage: 'memory',
    }) as Promise<unknown> as Promise<ObjStore>,
  async asyncPublish(nc, subject, payload, count, window) {
    const js = officialJs.jetstream(nc as never);
    let pending = 0;
    let failed: unknown;
    let wake: (() => void) | undefined;
    const settled = () => {
      pending--;
      wake?.();
    };
    for (let i = 0; i < count; i++) {
      while (pending >= window) await new Promise<void>((resolve) => (wake = resolve));
      pending++;
      js.publish(subject, payload).then(settled, (error) => {
        failed = error;
        settled();
      });
    }
    while (pending > 0) await new Promise<void>((resolve) => (wake = resolve));
    if (failed) throw failed;
  },
};

/** The modules of ours this benchmark loads. */
interface OursModules {
  client: { connect(o: { servers: string }): Promise<unknown> };
  jetstream: {
    jetstream(nc: unknown, o?: { publishAsyncMaxPending?: number }): unknown;
    jetstreamManager(nc: unknown): Promise<unknown>;
  };
  kv: { Kvm: new (js: unknown) => { create(b: string, o: object): Promise<unknown> } };
  obj: { Objm: new (js: unknown) => { create(b: string, o: object): Promise<unknown> } };
}

interface OursAsyncPublisher {
  publishAsync(subject: string, payload: Uint8Array): Promise<unknown>;
  publishAsyncComplete(): Promise<{ error: Error }[]>;
}

function ourClient(m: OursModules): JsClient {
  return {
    connect: (url) => m.client.connect({ servers: url }) as Promise<Conn>,
    jetstream: (nc) => m.jetstream.jetstream(nc) as Js,
    jetstreamManager: (nc) => m.jetstream.jetstreamManager(nc) as Promise<Jsm>,
    kv: (js, bucket) => new m.kv.Kvm(js).create(bucket, { storage: 'memory' }) as Promise<Kv>,
    objectStore: (js, bucket) =>
      new m.obj.Objm(js).create(bucket, { storage: 'memory' }) as Promise<ObjStore>,
    async asyncPublish(nc, subject, payload, count, window) {
      const js = m.jetstream.jetstream(nc, {
        publishAsyncMaxPending: window,
      }) as OursAsyncPublisher;
      for (let i = 0; i < count; i++) await js.publishAsync(subject, payload);
      const failures = await js.publishAsyncComplete();
      if (failures.length > 0) throw failures[0]!.error;
    },
  };
}

async function loadOurs(): Promise<Loaded<OursModules>> {
  const parts = await Promise.all([
    importIfBuilt<OursModules['client']>('@slipstream/client', ['connect']),
    importIfBuilt<OursModules['jetstream']>('@slipstream/jetstream', ['jetstream']),
    importIfBuilt<OursModules['kv']>('@slipstream/jetstream/kv', ['Kvm']),
    importIfBuilt<OursModules['obj']>('@slipstream/jetstream/objectstore', ['Objm']),
  ]);
  for (const part of parts) if ('skipped' in part) return part;
  const [client, jetstream, kv, obj] = parts.map((p) => (p as { module: unknown }).module);
  return { module: { client, jetstream, kv, obj } as OursModules };
}

const PAYLOAD = 128;
const WINDOW = 256;
const KV_OPS = 2000;
const OBJECT_BYTES = 16 * 1024 * 1024;
const BATCH = 500;
let streamCounter = 0;

/** The nats-server both clients talk to. */
interface Target {
  readonly url: string;
  readonly serverPid: number;
}

/** Rate of `section` per `units`, and this process's and the server's CPU per unit. */
async function timed(target: Target, units: number, section: () => Promise<void>) {
  const cpu = process.cpuUsage();
  const serverCpu = cpuMeter(target.serverPid);
  const started = performance.now();
  await section();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    perSecond: units / seconds,
    cpuMicrosPerUnit: (used.user + used.system) / units,
    serverCpuMicrosPerUnit: (serverCpu.seconds() * 1e6) / units,
  };
}

/** The figures of a message throughput measurement. */
const throughputSample = (t: Awaited<ReturnType<typeof timed>>): Sample => ({
  msgsPerSecond: t.perSecond,
  clientCpuMicrosPerMsg: t.cpuMicrosPerUnit,
  serverCpuMicrosPerMsg: t.serverCpuMicrosPerUnit,
});

/** A fresh memory stream on its own connection for one measurement, deleted after. */
async function withStream<T>(
  client: JsClient,
  target: Target,
  run: (ctx: { nc: Conn; js: Js; jsm: Jsm; name: string }) => Promise<T>,
): Promise<T> {
  const nc = await client.connect(target.url);
  try {
    const jsm = await client.jetstreamManager(nc);
    const name = `BENCH${++streamCounter}`;
    await jsm.streams.add({ name, subjects: [`${name}.>`], storage: 'memory' });
    try {
      return await run({ nc, js: client.jetstream(nc), jsm, name });
    } finally {
      await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}

async function asyncPublish(client: JsClient, target: Target, count: number): Promise<Sample> {
  return withStream(client, target, async ({ nc, jsm, name }) => {
    const payload = randomBytes(PAYLOAD);
    const t = await timed(target, count, () =>
      client.asyncPublish(nc, `${name}.x`, payload, count, WINDOW),
    );
    const stored = (await jsm.streams.info(name)).state.messages;
    if (stored !== count) throw new Error(`async publish stored ${stored} of ${count}`);
    return throughputSample(t);
  });
}

/** Reads `count` prefilled messages with fetches of BATCH, or one consume, acking each. */
async function read(
  client: JsClient,
  target: Target,
  count: number,
  how: 'fetch' | 'consume',
): Promise<Sample> {
  return withStream(client, target, async ({ nc, js, jsm, name }) => {
    const payload = randomBytes(PAYLOAD);
    for (let i = 0; i < count; i++) nc.publish(`${name}.x`, payload);
    await nc.flush();
    await jsm.consumers.add(name, { durable_name: 'C', ack_policy: 'explicit' });
    const consumer = await js.consumers.get(name, 'C');
    let received = 0;
    const t = await timed(target, count, async () => {
      if (how === 'fetch') {
        while (received < count) {
          for await (const m of await consumer.fetch({ max_messages: BATCH, expires: 5000 })) {
            m.ack();
            received++;
          }
        }
      } else {
        const messages = await consumer.consume({ max_messages: BATCH });
        for await (const m of messages) {
          m.ack();
          if (++received === count) break;
        }
        await messages.close();
      }
    });
    return throughputSample(t);
  });
}

async function kvOps(client: JsClient, target: Target): Promise<Sample> {
  const nc = await client.connect(target.url);
  try {
    const kv = await client.kv(client.jetstream(nc), `bench_${++streamCounter}`);
    const value = randomBytes(PAYLOAD);
    const put = await timed(target, KV_OPS, async () => {
      for (let i = 0; i < KV_OPS; i++) await kv.put(`k${i % 100}`, value);
    });
    const get = await timed(target, KV_OPS, async () => {
      for (let i = 0; i < KV_OPS; i++) {
        if ((await kv.get(`k${i % 100}`))?.value.length !== PAYLOAD) throw new Error('kv get');
      }
    });
    await kv.destroy();
    return { putOps: put.perSecond, getOps: get.perSecond };
  } finally {
    await nc.close();
  }
}

async function objectRoundTrip(client: JsClient, target: Target): Promise<Sample> {
  const nc = await client.connect(target.url);
  try {
    const store = await client.objectStore(client.jetstream(nc), `bench_${++streamCounter}`);
    const data = randomBytes(OBJECT_BYTES);
    const MB = OBJECT_BYTES / 1e6;
    const put = await timed(target, MB, async () => {
      await store.putBlob({ name: 'blob' }, data);
    });
    let got: Uint8Array | null = null;
    const get = await timed(target, MB, async () => {
      got = await store.getBlob('blob');
    });
    if ((got as Uint8Array | null)?.length !== OBJECT_BYTES) throw new Error('object get');
    await store.destroy();
    return { putMBps: put.perSecond, getMBps: get.perSecond };
  } finally {
    await nc.close();
  }
}

export async function jetstreamClientBenchmark(options: {
  rounds: number;
  messages?: number;
}): Promise<RatioTable> {
  const count = options.messages ?? 20_000;
  const table = new RatioTable(
    'JetStream client: @slipstream/jetstream vs @nats-io/jetstream, kv, obj 3.4, same nats-server 2.9.10',
    '@nats-io',
    'slipstream',
  );
  const loaded = await loadOurs();
  if ('skipped' in loaded) table.note(`slipstream side skipped: ${loaded.skipped}`);
  const server = await startJetStreamServer('nats-server');
  if ('skipped' in server) throw new Error(server.skipped);
  const target: Target = { url: server.process.url, serverPid: server.process.child.pid! };
  const compare = (label: string, workload: (client: JsClient) => Promise<Sample>) =>
    alternateRounds(
      { rounds: options.rounds, label, warmup: true },
      { name: '@nats-io', measure: () => workload(official) } satisfies Side,
      sideOf('slipstream', loaded, (m) => workload(ourClient(m))),
    );
  try {
    const throughputRows = async (
      label: string,
      target: number,
      workload: (client: JsClient) => Promise<Sample>,
    ) => {
      const result = await compare(label, workload);
      addThroughputRows(table, label, target, result, 'serverCpuMicrosPerMsg');
    };
    await throughputRows(`async publish ${PAYLOAD} B, ${WINDOW} in flight`, 3, (c) =>
      asyncPublish(c, target, count),
    );
    await throughputRows(`fetch ${BATCH} at a time + ack`, 1, (c) =>
      read(c, target, count, 'fetch'),
    );
    await throughputRows(`consume + ack`, 1.5, (c) => read(c, target, count, 'consume'));

    const kv = await compare('KV put/get', (c) => kvOps(c, target));
    table.add({
      name: 'KV put (awaited)',
      unit: 'ops/s',
      better: 'higher',
      target: 1,
      ...pick(kv, 'putOps'),
    });
    table.add({
      name: 'KV get',
      unit: 'ops/s',
      better: 'higher',
      target: 1,
      ...pick(kv, 'getOps'),
    });

    const obj = await compare('object put/get', (c) => objectRoundTrip(c, target));
    table.add({
      name: 'object put 16 MiB',
      unit: 'MB/s',
      better: 'higher',
      target: 1,
      ...pick(obj, 'putMBps'),
    });
    table.add({
      name: 'object get 16 MiB',
      unit: 'MB/s',
      better: 'higher',
      target: 1,
      ...pick(obj, 'getMBps'),
    });

    table.note(
      `${count} messages of ${PAYLOAD} B per publish/fetch/consume round, memory streams; KV: ${KV_OPS} puts then ${KV_OPS} gets on 100 keys; objects: 16 MiB put then got, memory buckets.`,
    );
    table.note(
      'Async publish: ours is js.publishAsync with publishAsyncMaxPending 256; the official client has no such publisher for nats-server 2.9 (startBatch/startFastIngest need 2.12+), so its side keeps 256 js.publish promises outstanding.',
    );
    table.note(
      'Client CPU is process.cpuUsage() of this process around the measured section (both ends of a read run here); nats-server CPU is the run time of its threads (/proc/<pid>/task/*/schedstat) around the same section.',
    );
  } finally {
    await server.stop();
  }
  return table;
}
