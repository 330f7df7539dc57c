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
describe('missed idle heartbeats (nats-server)', () => {
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
});
