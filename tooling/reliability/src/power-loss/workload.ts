import { connect, type NatsConnection } from '@slipstream/client';
import { type JetStreamClient, jetstream, jetstreamManager } from '@slipstream/jetstream';
import { Kvm } from '@slipstream/jetstream/kv';
import type { Ledger } from './ledger.js';

/** The streams of the storm, file-backed, nothing removed by limits (so no sequence has a gap). */
export const STREAMS = ['PL_ORDERS', 'PL_EVENTS'] as const;
export const KV_BUCKET = 'PL';
export const KV_STREAM = `KV_${KV_BUCKET}`;
/** The durable pull consumer that acks PL_ORDERS with double acks. */
export const CONSUMER = 'WORKER';
/** Short, so that a delivery whose ack was lost comes back soon after a restart. */
export const ACK_WAIT_MS = 1_000;

const subjectOf = (stream: string) => `pl.${stream.slice(3).toLowerCase()}`;
const PUBLISHERS_PER_STREAM = 4;
const KV_WRITERS = 4;
const KEYS_PER_WRITER = 10;

/** Creates the streams, the bucket and the consumer on a fresh server. */
export async function createWorkload(url: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const stream of STREAMS) {
      await jsm.streams.add({
        name: stream,
        subjects: [`${subjectOf(stream)}.>`],
        storage: 'file',
      });
    }
    await new Kvm(nc).create(KV_BUCKET, { history: 1 });
    await jsm.consumers.add('PL_ORDERS', {
      durable_name: CONSUMER,
      ack_policy: 'explicit',
      ack_wait: ACK_WAIT_MS * 1_000_000,
      max_ack_pending: 100_000,
    });
  } finally {
    await nc.close();
  }
}

export interface Storm {
  /** Closes the storm's connections (once the server is dead) and waits for its workers. */
  end(): Promise<void>;
}

/**
 * The publish storm: on each stream 4 publishers awaiting their PubAcks and one publishing
 * asynchronously (up to 256 acks outstanding), 4 KV writers, and the consumer acking with double
 * acks; everything confirmed goes into the ledger. Runs until `end()`.
 */
export async function startStorm(url: string, cycle: number, ledger: Ledger): Promise<Storm> {
  const connections = await Promise.all(
    [0, 1, 2].map(() => connect({ servers: url, reconnect: false })),
  );
  const [publishing, writing, consuming] = connections;
  const js = jetstream(publishing, { publishAsyncMaxPending: 256 });
  const workers: Promise<void>[] = [];
  for (const stream of STREAMS) {
    for (let p = 0; p < PUBLISHERS_PER_STREAM; p++) {
      workers.push(publishAwaiting(js, `${subjectOf(stream)}.${p}`, `c${cycle}-p${p}`, ledger));
    }
    workers.push(publishAsynchronously(js, `${subjectOf(stream)}.async`, `c${cycle}-a`, ledger));
  }
  const kv = await new Kvm(writing).open(KV_BUCKET);
  for (let w = 0; w < KV_WRITERS; w++) {
    workers.push(
      (async () => {
        for (let n = 0; ; n++) {
          const key = `w${w}.k${n % KEYS_PER_WRITER}`;
          const value = `c${cycle}-${n}`;
          let revision: number;
          try {
            revision = await kv.put(key, value);
          } catch {
            return;
          }
          ledger.kvPut(key, revision, value);
        }
      })(),
    );
  }
  workers.push(consumeAndAck(consuming, ledger));
  return {
    async end() {
      await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
      await Promise.all(workers);
    },
  };
}

async function publishAwaiting(js: JetStreamClient, subject: string, tag: string, ledger: Ledger) {
  for (let n = 0; ; n++) {
    const payload = `${tag}-${n}`;
    try {
      const ack = await js.publish(subject, payload);
      ledger.message(ack.stream, ack.seq, payload);
    } catch {
      return;
    }
  }
}

async function publishAsynchronously(
  js: JetStreamClient,
  subject: string,
  tag: string,
  ledger: Ledger,
) {
  const outstanding: Promise<unknown>[] = [];
  for (let n = 0; ; n++) {
    const payload = `${tag}-${n}`;
    try {
      const future = await js.publishAsync(subject, payload);
      outstanding.push(
        future.ok.then(
          (ack) => ledger.message(ack.stream, ack.seq, payload),
          () => {},
        ),
      );
      if (outstanding.length > 1_000) await Promise.all(outstanding.splice(0));
    } catch {
      break;
    }
  }
  await Promise.all(outstanding);
}

/** The consumer's side of the storm: every message acked with a double ack, the confirmed ones noted. */
async function consumeAndAck(nc: NatsConnection, ledger: Ledger): Promise<void> {
  const js = jetstream(nc);
  const acks: Promise<unknown>[] = [];
  try {
    const consumer = await js.consumers.get('PL_ORDERS', CONSUMER);
    const messages = await consumer.consume({ max_messages: 256 });
    for await (const m of messages) {
      acks.push(
        m.ackAck({ timeout: 5_000 }).then(
          (confirmed) => confirmed && ledger.ack(m.seq),
          () => {},
        ),
      );
      if (acks.length > 512) await Promise.all(acks.splice(0));
    }
  } catch {
    // the server is gone
  }
  await Promise.all(acks);
}
