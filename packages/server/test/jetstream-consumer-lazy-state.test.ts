/**
 * A consumer writes deliveries and plain acks to its stream's store lazily, up to 100 ms later
 * (consumer-state-saver.ts), as nats-server does; what was done just before a graceful stop
 * must still be written by the stop.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ConsumerRequests } from './jetstream-consumer-requests.js';
import { ConsumerWire, startOursOn } from './jetstream-consumer-wire.js';

it('plain acks sent just before a graceful restart are still acked after it', async () => {
  const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-lazy-state-'));
  let server = await startOursOn(storeDir);
  let wire = await ConsumerWire.connect(server.port);
  try {
    const js = new ConsumerRequests(wire);
    await js.stream({ name: 'S', subjects: ['s.>'], storage: 'file' }, ['s.1', 's.2', 's.3']);
    await js.consumer('S', { durable_name: 'D', ack_policy: 'explicit' });
    // a batch beyond the 3 stored ends with a 404 right after the last message and its ack
    expect(await js.pull('S', 'D', 4)).toEqual(['s.1:m1', 's.2:m2', 's.3:m3']);
    await wire.flush();
    wire.close();
    await server.close();

    server = await startOursOn(storeDir);
    wire = await ConsumerWire.connect(server.port);
    const info = await new ConsumerRequests(wire).info('S', 'D');
    expect({
      delivered: (info.delivered as { stream_seq: number }).stream_seq,
      ack_floor: (info.ack_floor as { stream_seq: number }).stream_seq,
      num_ack_pending: info.num_ack_pending,
    }).toEqual({ delivered: 3, ack_floor: 3, num_ack_pending: 0 });
  } finally {
    wire.close();
    await server.close();
    await rm(storeDir, { recursive: true, force: true });
  }
});
