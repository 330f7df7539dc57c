/**
 * Consumers are woken by appends, acks, requests and subscriptions, never by polling: a
 * thousand idle consumers (durable pull, and push ones nobody listens to yet) use no CPU
 * while nothing happens; a push consumer delivers as soon as someone subscribes.
 */
import { expect, it } from 'vitest';
import { ConsumerWire, sleep, startOurs } from './jetstream-consumer-wire.js';

const CONSUMERS = 1000;

it(`${CONSUMERS} idle consumers cost no CPU`, async () => {
  const server = await startOurs();
  const wire = await ConsumerWire.connect(server.port);
  try {
    await wire.request('$JS.API.STREAM.CREATE.IDLE', { name: 'IDLE', subjects: ['idle.>'] });
    for (let i = 0; i < CONSUMERS; i++) {
      const push = i % 2 === 1;
      await wire.request(`$JS.API.CONSUMER.CREATE.IDLE.C${i}`, {
        stream_name: 'IDLE',
        config: {
          durable_name: `C${i}`,
          ack_policy: 'explicit',
          filter_subject: `idle.${i}`,
          ...(push ? { deliver_subject: `deliver.${i}` } : {}),
        },
      });
    }
    await sleep(200);
    const before = process.cpuUsage();
    await sleep(2_000);
    const spent = process.cpuUsage(before);
    const cpuMs = (spent.user + spent.system) / 1000;
    // The test process is the server: its CPU over two idle seconds, timers and all.
    expect(cpuMs).toBeLessThan(100);
    // Stored while nobody listens, delivered as soon as someone subscribes, and only there.
    await wire.request('idle.7', 'hello');
    await sleep(100);
    const subscribed = Date.now();
    wire.sub('deliver.>');
    const got = await wire.received('deliver.>', 1);
    expect(got[0]!.at - subscribed).toBeLessThan(150);
    expect(got.map((m) => m.reply?.split('.').slice(2, 4))).toEqual([['IDLE', 'C7']]);
  } finally {
    wire.close();
    await server.stop();
  }
}, 60_000);
