/**
 * Durability of the publish path: clients publish with acks while slipstream-server is killed
 * with SIGKILL at a random moment; after a restart every acknowledged message is there, at the
 * sequence its PubAck named, with its payload. Three cycles on one store (CRASH_CYCLES for more).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type RunningNatsServer, startSlipstreamServer } from '@slipstream/test-servers';
import { afterAll, describe, expect, it } from 'vitest';

const cycles = Number(process.env.CRASH_CYCLES ?? 3);
const clients = 4;
const inFlightPerClient = 32;

interface Acked {
  seq: number;
  payload: string;
}

async function request(nc: NatsConnection, subject: string, body: string) {
  return JSON.parse((await nc.request(subject, body, { timeout: 5_000 })).string());
}

/** Publishes until the connection dies; returns what was acknowledged. */
async function publishUntilKilled(url: string, client: number, cycle: number): Promise<Acked[]> {
  const nc = await connect({ servers: url, reconnect: false });
  const acked: Acked[] = [];
  let n = 0;
  const worker = async () => {
    for (;;) {
      const payload = `c${cycle}-${client}-${n++}`;
      let ack: { seq?: number; error?: unknown };
      try {
        ack = await request(nc, `crash.${client}`, payload);
      } catch {
        return; // the server is gone
      }
      if (ack.error || typeof ack.seq !== 'number')
        throw new Error(`bad ack ${JSON.stringify(ack)}`);
      acked.push({ seq: ack.seq, payload });
    }
  };
  await Promise.all(Array.from({ length: inFlightPerClient }, worker));
  await nc.close().catch(() => {});
  return acked;
}

describe('slipstream-server killed while acknowledging publishes', () => {
  let server: RunningNatsServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it(`loses no acknowledged message (${cycles} SIGKILL cycles)`, async () => {
    server = await startSlipstreamServer({ jetstream: true });
    const admin = await connect({ servers: server.url });
    const created = await request(
      admin,
      '$JS.API.STREAM.CREATE.CRASH',
      JSON.stringify({ name: 'CRASH', subjects: ['crash.>'], storage: 'file' }),
    );
    expect(created.error).toBeUndefined();
    await admin.close();
    const all: Acked[] = [];
    for (let cycle = 0; cycle < cycles; cycle++) {
      const url = server.url;
      const publishing = Array.from({ length: clients }, (_, c) =>
        publishUntilKilled(url, c, cycle),
      );
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
      await server.kill('SIGKILL');
      const acked = (await Promise.all(publishing)).flat();
      expect(acked.length).toBeGreaterThan(0);
      all.push(...acked);
      server = await server.restart();

      const nc = await connect({ servers: server.url });
      const info = await request(nc, '$JS.API.STREAM.INFO.CRASH', '');
      expect(info.state.messages).toBeGreaterThanOrEqual(all.length);
      const missing: Acked[] = [];
      for (const { seq, payload } of all) {
        const got = await request(nc, '$JS.API.STREAM.MSG.GET.CRASH', JSON.stringify({ seq }));
        const data = got.message && Buffer.from(got.message.data ?? '', 'base64').toString();
        if (data !== payload) missing.push({ seq, payload });
      }
      await nc.close();
      console.log(
        `crash cycle ${cycle + 1}: ${acked.length} acknowledged before SIGKILL, ${all.length} in all, ${info.state.messages} stored, ${missing.length} missing`,
      );
      expect(missing).toEqual([]);
    }
  }, 120_000);
});
