import { connect } from '@slipstream/client';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AckPolicy,
  JetStreamStatusError,
  jetstream,
  jetstreamManager,
  StorageType,
} from '../src/mod.js';

// Freezing the server (SIGSTOP) needs it in a process of its own: nats-server only.
describe('idle heartbeats (nats-server)', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });
  afterAll(async () => {
    server?.process.kill('SIGCONT');
    await server?.stop();
  });

  it('end a fetch from a frozen server with an error instead of waiting for expires', async () => {
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'HB', subjects: ['hb.>'], storage: StorageType.Memory });
      await jsm.consumers.add('HB', { durable_name: 'C', ack_policy: AckPolicy.Explicit });
      const consumer = await jetstream(nc).consumers.get('HB', 'C');
      const batch = await consumer.fetch({ max_messages: 1, expires: 20_000, idle_heartbeat: 300 });
      const ended = (async () => {
        for await (const _ of batch) throw new Error('no message was published');
      })().catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 700)); // heartbeats flow meanwhile
      const frozenAt = Date.now();
      server.process.kill('SIGSTOP');
      const error = await ended;
      server.process.kill('SIGCONT');
      expect(error).toBeInstanceOf(JetStreamStatusError);
      expect(error).toMatchObject({ code: 409, message: 'idle heartbeats missed' });
      expect(Date.now() - frozenAt).toBeLessThan(5000);
    } finally {
      await nc.close();
    }
  });

  it.each([
    ['SIGTERM', 'the server says 409 Server Shutdown'],
    ['SIGKILL', 'nothing is said; the missed heartbeats tell'],
  ] as const)('let consume() ask again after a %s restart (%s)', async (signal, _how) => {
    const nc = await connect({ servers: server.url, reconnectTimeWait: 200 });
    const stream = `RS_${signal}`;
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`], storage: StorageType.File });
      await jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
      const js = jetstream(nc);
      await js.publish(`${stream}.1`, 'before');
      const consumer = await js.consumers.get(stream, 'C');
      const messages = await consumer.consume({ max_messages: 10, expires: 2000 });
      const got: string[] = [];
      for await (const m of messages) {
        got.push(m.string());
        m.ack();
        if (got.length === 1) {
          await server.kill(signal);
          server = await server.restart();
          await js.publish(`${stream}.2`, 'after', { retries: 20 });
        }
        if (m.string() === 'after') break;
      }
      // at least once: an ack lost with a killed server brings 'before' back once
      expect(got[0]).toBe('before');
      expect(got.at(-1)).toBe('after');
      expect(got.length).toBeLessThanOrEqual(3);
    } finally {
      await nc.close();
    }
  });
});
