/**
 * One measured round of the JetStream benchmark on one server: a fresh stream, publishes with
 * ack one at a time (latency), then publishes with a window of acks in flight (throughput, the
 * server's CPU per stored message), then the disk the store takes per stored message.
 */
import { randomFillSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { cpuMeter } from '@slipstream/test-servers';
import type { Sample } from './harness/rounds.js';
import { percentile } from './harness/stats.js';
import type { JetStreamPublisher, PublisherFactory } from './jetstream-publishers.js';
import { diskUsageBytes, type JetStreamServer } from './jetstream-servers.js';

export type Storage = 'file' | 'memory';

export interface RoundShape {
  readonly size: number;
  /** Publishes awaited one by one for the latency figures. */
  readonly syncMessages: number;
  /** Publishes with up to `inFlight` PubAcks outstanding for the throughput figure. */
  readonly asyncMessages: number;
  readonly inFlight: number;
}

/** Publishes that set up the client's reply inbox and the stream's first pages, not measured. */
const UNRECORDED = 20;
/** No PubAck for this long means the server lost or refused messages: fail the round. */
const STALL_MS = 30_000;
/**
 * nats-server acknowledges from its write cache and writes the block file a moment later;
 * waiting this long before reading the disk counts what it stored, not what it still holds.
 */
export const SETTLE_MS = 200;

let streams = 0;

/**
 * Figures of one round: syncP50Micros, syncP99Micros, syncMsgsPerSecond, asyncMsgsPerSecond,
 * serverCpuMicrosPerMsg and clientCpuMicrosPerMsg (this process's, both over the windowed
 * publishes), diskBytesPerMsg and walBytesPerMsg (the part of it in a SQLite store's WAL file).
 */
export async function publishRound(
  server: JetStreamServer,
  storage: Storage,
  publisherOf: PublisherFactory,
  shape: RoundShape,
): Promise<Sample> {
  const url = server.process.url;
  const pid = server.process.child.pid!;
  const admin = await connect({ servers: url });
  const jsm = await jetstreamManager(admin);
  const id = ++streams;
  const stream = `BENCH_${id}`;
  const subject = `bench.js.${id}`;
  await jsm.streams.add({
    name: stream,
    subjects: [subject],
    storage: storage === 'file' ? StorageType.File : StorageType.Memory,
  });
  const publisher = await publisherOf(url);
  try {
    // Random bytes: neither store gets to compress zeros.
    const payload = randomFillSync(new Uint8Array(shape.size));
    for (let i = 0; i < UNRECORDED; i++) await publisher.publish(subject, payload);

    const micros: number[] = [];
    const syncStart = process.hrtime.bigint();
    for (let i = 0; i < shape.syncMessages; i++) {
      const start = process.hrtime.bigint();
      await publisher.publish(subject, payload);
      micros.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    const syncSeconds = Number(process.hrtime.bigint() - syncStart) / 1e9;

    const serverMeter = cpuMeter(pid);
    const clientCpuBefore = process.cpuUsage();
    const asyncStart = process.hrtime.bigint();
    await publishWindowed(publisher, subject, payload, shape.asyncMessages, shape.inFlight);
    const asyncSeconds = Number(process.hrtime.bigint() - asyncStart) / 1e9;
    const serverCpu = serverMeter.seconds();
    const clientCpu = process.cpuUsage(clientCpuBefore);

    await sleep(SETTLE_MS);
    const stored = UNRECORDED + shape.syncMessages + shape.asyncMessages;
    const disk = await diskUsageBytes(server.storeDir);
    return {
      syncP50Micros: percentile(micros, 0.5),
      syncP99Micros: percentile(micros, 0.99),
      syncMsgsPerSecond: shape.syncMessages / syncSeconds,
      asyncMsgsPerSecond: shape.asyncMessages / asyncSeconds,
      serverCpuMicrosPerMsg: (serverCpu / shape.asyncMessages) * 1e6,
      clientCpuMicrosPerMsg: (clientCpu.user + clientCpu.system) / shape.asyncMessages,
      diskBytesPerMsg: disk.all / stored,
      walBytesPerMsg: disk.wal / stored,
    };
  } finally {
    await publisher.close();
    await jsm.streams.delete(stream);
    await admin.close();
  }
}

/** Publishes `count` messages keeping `inFlight` unacknowledged; resolves on the last PubAck. */
function publishWindowed(
  publisher: JetStreamPublisher,
  subject: string,
  payload: Uint8Array,
  count: number,
  inFlight: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let sent = 0;
    let acked = 0;
    let ackedAtLastCheck = -1;
    let done = false;
    const watchdog = setInterval(() => {
      if (acked === ackedAtLastCheck) {
        finish(new Error(`PubAcks stalled at ${acked} of ${count} for ${STALL_MS / 1000} s`));
      }
      ackedAtLastCheck = acked;
    }, STALL_MS);
    const finish = (error?: Error) => {
      done = true;
      clearInterval(watchdog);
      if (error) reject(error);
      else resolve();
    };
    const onAck = () => {
      if (done) return;
      if (++acked === count) finish();
      else if (sent < count) send();
    };
    const send = () => {
      sent++;
      publisher.publish(subject, payload).then(onAck, finish);
    };
    while (sent < Math.min(count, inFlight)) send();
  });
}
