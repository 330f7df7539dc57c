/**
 * An atomic batch is all there or absent, never part of it, whenever slipstream-server dies:
 * clients publish batches (nats-server 2.12 atomic batch publish, each batch on a subject of its
 * own with a random size) while the built server is killed with SIGKILL at a random moment;
 * after each restart every subject holds exactly its batch's size or nothing, and every batch
 * whose commit was acknowledged is there, its commit at the sequence the PubAck named. Several
 * cycles on one store (ATOMIC_CRASH_CYCLES for more). The store commits a batch as one SQLite
 * transaction (MessageStore.atomically).
 */
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { type RunningNatsServer, startSlipstreamServer } from '@slipstream/test-servers';
import { afterAll, describe, expect, it } from 'vitest';

const cycles = Number(process.env.ATOMIC_CRASH_CYCLES ?? 4);
const clients = 3;
const maxBatch = 40;

class BadAck extends Error {}

interface Attempt {
  subject: string;
  size: number;
  /** The commit's sequence, once its PubAck came back. */
  ackedSeq?: number;
}

async function request(nc: NatsConnection, subject: string, body = '') {
  return JSON.parse((await nc.request(subject, body, { timeout: 5_000 })).string());
}

function batchHeaders(id: string, seq: number, commit: boolean) {
  const h = headers();
  h.set('Nats-Batch-Id', id);
  h.set('Nats-Batch-Sequence', String(seq));
  if (commit) h.set('Nats-Batch-Commit', '1');
  return h;
}

/** Publishes batches until the connection dies; every batch it started is in `attempts`. */
async function batchUntilKilled(url: string, name: string, attempts: Attempt[]): Promise<void> {
  const nc = await connect({ servers: url, reconnect: false });
  for (let n = 0; ; n++) {
    const id = `${name}-${n}`;
    const attempt: Attempt = {
      subject: `batch.${id}`,
      size: 2 + Math.floor(Math.random() * maxBatch),
    };
    attempts.push(attempt);
    try {
      for (let seq = 1; seq < attempt.size; seq++) {
        nc.publish(attempt.subject, `${id}/${seq}`, { headers: batchHeaders(id, seq, false) });
        // Spread the batch over time, so that kills land inside batches as well as between them.
        if (seq % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const reply = await nc.request(attempt.subject, `${id}/${attempt.size}`, {
        headers: batchHeaders(id, attempt.size, true),
        timeout: 5_000,
      });
      const ack = reply.json<{ seq?: number; count?: number; error?: unknown }>();
      if (ack.error || ack.count !== attempt.size) throw new BadAck(reply.string());
      attempt.ackedSeq = ack.seq;
    } catch (error) {
      if (error instanceof BadAck) throw error;
      break; // the server is gone
    }
  }
  await nc.close().catch(() => {});
}

describe('slipstream-server killed while committing atomic batches', () => {
  let server: RunningNatsServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it(`never leaves part of a batch (${cycles} SIGKILL cycles)`, async () => {
    server = await startSlipstreamServer({ jetstream: true });
    const admin = await connect({ servers: server.url });
    const created = await request(
      admin,
      '$JS.API.STREAM.CREATE.BATCHES',
      JSON.stringify({
        name: 'BATCHES',
        subjects: ['batch.>'],
        storage: 'file',
        allow_atomic: true,
      }),
    );
    expect(created.error).toBeUndefined();
    await admin.close();
    const attempts: Attempt[] = [];
    for (let cycle = 0; cycle < cycles; cycle++) {
      const url = server.url;
      const publishing = Array.from({ length: clients }, (_, c) =>
        batchUntilKilled(url, `c${cycle}-${c}`, attempts),
      );
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 900));
      await server.kill('SIGKILL');
      await Promise.all(publishing);
      server = await server.restart();

      const nc = await connect({ servers: server.url });
      const info = await request(
        nc,
        '$JS.API.STREAM.INFO.BATCHES',
        JSON.stringify({ subjects_filter: 'batch.>' }),
      );
      const counts = (info.state.subjects ?? {}) as Record<string, number>;
      const sizeOf = new Map(attempts.map((a) => [a.subject, a.size]));
      const partial = Object.entries(counts).filter(([subject, n]) => sizeOf.get(subject) !== n);
      const acked = attempts.filter((a) => a.ackedSeq !== undefined);
      const lost = acked.filter((a) => counts[a.subject] !== a.size);
      const misplaced: string[] = [];
      for (const a of acked.slice(-20)) {
        const got = await request(
          nc,
          '$JS.API.STREAM.MSG.GET.BATCHES',
          JSON.stringify({ seq: a.ackedSeq }),
        );
        if (got.message?.subject !== a.subject) misplaced.push(a.subject);
      }
      await nc.close();
      const present = Object.keys(counts).length;
      console.log(
        `atomic batch crash cycle ${cycle + 1}: ${attempts.length} batches started, ${acked.length} acknowledged, ${present} present, ${partial.length} partial, ${lost.length} acknowledged but missing`,
      );
      expect(acked.length).toBeGreaterThan(0);
      expect(partial).toEqual([]);
      expect(lost.map((a) => a.subject)).toEqual([]);
      expect(misplaced).toEqual([]);
      expect(info.state.messages).toBe(Object.values(counts).reduce((sum, n) => sum + n, 0));
    }
  }, 180_000);
});
