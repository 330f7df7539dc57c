import { describe, expect, it } from 'vitest';
import { AckPolicy } from '../src/mod.js';
import { collectNotifications } from './notifications.js';
import { memoryStream, streamServers, useJetStreamClients } from './servers.js';

describe.each(streamServers)('consume() by bytes and its status() against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);

  async function streamWithConsumer(count: number, size: number) {
    const { nc, jsm, js } = clients;
    const name = await memoryStream(jsm);
    for (let i = 1; i <= count; i++) nc.publish(`${name}.m`, new Uint8Array(size).fill(i % 256));
    await nc.flush();
    await jsm.consumers.add(name, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
    return { name, consumer: await js.consumers.get(name, 'C') };
  }

  it('asks for max_bytes at most and delivers everything in order', async () => {
    const { name, consumer } = await streamWithConsumer(100, 1000);
    const requests: { batch: number; max_bytes?: number }[] = [];
    const spy = clients.nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${name}.C`, {
      callback: (_e, m) => {
        requests.push(m.json());
      },
    });
    const messages = await consumer.consume({ max_bytes: 10_000, expires: 5000 });
    const status = collectNotifications(messages);
    const seqs: number[] = [];
    for await (const m of messages) {
      seqs.push(m.seq);
      expect(m.data.length).toBe(1000);
      m.ack();
      if (m.seq === 100) break;
    }
    await clients.nc.flush();
    spy.unsubscribe();
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // about 9 messages of 1000 B fit in 10,000 B: many requests, none over the budget
    expect(requests.length).toBeGreaterThanOrEqual(10);
    expect(requests.every((r) => r.max_bytes! > 0 && r.max_bytes! <= 10_000)).toBe(true);
    // asked for in all, less what requests ended without (discard), is at most the budget
    // plus what was delivered (1000 B of payload, under 100 B of subject and ack reply each)
    const asked = requests.reduce((sum, r) => sum + r.max_bytes!, 0);
    const seen = await status.done;
    const discarded = seen.reduce((sum, n) => sum + (n.type === 'discard' ? n.bytesLeft : 0), 0);
    expect(asked - discarded).toBeLessThanOrEqual(10_000 + 100 * 1100);
    expect(requests[0]).toEqual({
      batch: 1_000_000,
      max_bytes: 10_000,
      expires: 5_000_000_000,
      idle_heartbeat: 2_500_000_000,
    });
    // status() was called before the reader started, which sends the first request: it tells
    // of every one, as the body sent
    const nexts = seen.filter((n) => n.type === 'next');
    expect(nexts.map((n) => n.options)).toEqual(requests);
  });

  it('notifies heartbeats, discards at expiry, and the deleted consumer; then ends', async () => {
    const { name, consumer } = await streamWithConsumer(3, 10);
    const messages = await consumer.consume({
      max_messages: 10,
      expires: 1000,
      idle_heartbeat: 500,
    });
    const status = collectNotifications(messages);
    let received = 0;
    // ends with the deletion's error, maybe while the deletion is awaited: caught from the start
    const reading = (async () => {
      for await (const m of messages) {
        m.ack();
        received++;
      }
    })().catch(() => {});
    // one expiry at least: the first request ends with 7 of its 10 messages undelivered
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await clients.jsm.consumers.delete(name, 'C');
    await reading;
    const seen = await status.done;
    expect(received).toBe(3);
    const types = seen.map((n) => n.type);
    expect(types[0]).toBe('next');
    expect(seen).toContainEqual({ type: 'discard', messagesLeft: 7, bytesLeft: 0 });
    expect(seen).toContainEqual({
      type: 'heartbeat',
      lastConsumerSequence: 3,
      lastStreamSequence: 3,
    });
    expect(seen.at(-1)).toMatchObject({ type: 'consumer_deleted', code: 409 });
    expect(await messages.closed()).toBeDefined();
  });

  it('status() of a fetch that got its messages ends with it, telling only its request', async () => {
    const { consumer } = await streamWithConsumer(2, 10);
    const batch = await consumer.fetch({ max_messages: 2, expires: 1000 });
    const status = collectNotifications(batch);
    for await (const m of batch) m.ack();
    expect(await status.done).toEqual([
      { type: 'next', options: { batch: 2, expires: 1_000_000_000, idle_heartbeat: 500_000_000 } },
    ]);
  });
});
