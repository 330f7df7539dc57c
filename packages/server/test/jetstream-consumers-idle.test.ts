/**
 * Consumers are woken by appends, acks, requests and subscriptions, never by polling: a
 * thousand idle consumers (durable pull, and push ones nobody listens to yet) use no CPU
 * while nothing happens; a push consumer delivers as soon as someone subscribes. A pull request
 * waiting longer than one setTimeout can (about 24.8 days) does not keep a timer firing.
 */
import { expect, it, vi } from 'vitest';
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

it('a pull request expiring in 30 days sets no timer every millisecond', async () => {
  const server = await startOurs();
  const wire = await ConsumerWire.connect(server.port);
  try {
    await wire.request('$JS.API.STREAM.CREATE.LONG', { name: 'LONG', subjects: ['long'] });
    await wire.request('$JS.API.CONSUMER.CREATE.LONG.C', {
      stream_name: 'LONG',
      config: { durable_name: 'C', ack_policy: 'explicit' },
    });
    wire.pub(
      '$JS.API.CONSUMER.MSG.NEXT.LONG.C',
      { batch: 1, expires: 30 * 24 * 3600 * 1e9 },
      wire.inbox(),
    );
    await wire.flush();
    // The test process is the server: Node runs a setTimeout of more than 2^31-1 ms after 1 ms.
    const armed = vi.spyOn(globalThis, 'setTimeout');
    await sleep(500);
    expect(armed.mock.calls.length).toBeLessThan(20);
    armed.mockRestore();
  } finally {
    wire.close();
    await server.stop();
  }
});

it('a push consumer with a 30-day idle heartbeat sends no heartbeat every millisecond', async () => {
  const server = await startOurs();
  const wire = await ConsumerWire.connect(server.port);
  try {
    await wire.request('$JS.API.STREAM.CREATE.BEAT', { name: 'BEAT', subjects: ['beat'] });
    wire.sub('beats');
    const created = await wire.request('$JS.API.CONSUMER.CREATE.BEAT.P', {
      stream_name: 'BEAT',
      config: {
        durable_name: 'P',
        ack_policy: 'explicit',
        deliver_subject: 'beats',
        idle_heartbeat: 30 * 24 * 3600 * 1e9,
      },
    });
    expect(created.error).toBeUndefined();
    await sleep(300);
    expect(wire.on('beats')).toEqual([]);
  } finally {
    wire.close();
    await server.stop();
  }
});
