import { describe, expect, it } from 'vitest';
import {
  AckPolicy,
  ConsumerNotFoundError,
  JetStreamError,
  JetStreamStatusError,
  StorageType,
} from '../src/mod.js';
import { all } from './all.js';
import { expectApiError } from './api-errors.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('pull consumers against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);

  /** A stream with `count` messages `<name>.<i>` (payload `m<i>`) and a durable pull consumer. */
  async function streamWithConsumer(count: number, consumer: Record<string, unknown> = {}) {
    const name = uniqueStream();
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    for (let i = 1; i <= count; i++) await clients.js.publish(`${name}.${i}`, `m${i}`);
    await clients.jsm.consumers.add(name, {
      durable_name: 'C',
      ack_policy: AckPolicy.Explicit,
      ...consumer,
    });
    return { name, consumer: await clients.js.consumers.get(name, 'C') };
  }

  it('gets only an existing pull consumer', async () => {
    const { name } = await streamWithConsumer(0);
    await expectApiError(clients.js.consumers.get(name, 'NOPE'), 404, 10014, ConsumerNotFoundError);
    await clients.jsm.consumers.add(name, {
      durable_name: 'PUSH',
      deliver_subject: 'push.here',
      ack_policy: AckPolicy.Explicit,
    });
    await expect(clients.js.consumers.get(name, 'PUSH')).rejects.toBeInstanceOf(JetStreamError);
    const consumer = await clients.js.consumers.get(name, 'C');
    expect((await consumer.info(true)).name).toBe('C');
  });

  it('next() delivers one message with its metadata from the ack subject', async () => {
    const { name, consumer } = await streamWithConsumer(3);
    const m = await consumer.next({ expires: 2000 });
    expect(m).not.toBeNull();
    expect(m!.subject).toBe(`${name}.1`);
    expect(m!.string()).toBe('m1');
    expect(m!.seq).toBe(1);
    expect(m!.redelivered).toBe(false);
    expect(m!.info).toMatchObject({
      stream: name,
      consumer: 'C',
      deliveryCount: 1,
      streamSequence: 1,
      deliverySequence: 1,
      pending: 2,
      redelivered: false,
      domain: '',
    });
    expect(Math.abs(m!.time.getTime() - Date.now())).toBeLessThan(60_000);
    expect(await m!.ackAck()).toBe(true);
    expect(await m!.ackAck()).toBe(false);
    const info = await consumer.info();
    expect(info).toMatchObject({ num_ack_pending: 0, num_pending: 2 });
    expect(info.ack_floor.stream_seq).toBe(1);
  });

  it('next() answers null when nothing comes before expires', async () => {
    const { consumer } = await streamWithConsumer(0);
    const started = Date.now();
    expect(await consumer.next({ expires: 500 })).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('fetch() ends as soon as max_messages arrived', async () => {
    const { consumer } = await streamWithConsumer(5);
    const started = Date.now();
    const batch = await consumer.fetch({ max_messages: 3, expires: 10_000 });
    const got = await all(batch);
    expect(got.map((m) => m.string())).toEqual(['m1', 'm2', 'm3']);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await batch.closed()).toBeUndefined();
    for (const m of got) m.ack();
    const rest = await all(await consumer.fetch({ max_messages: 10, expires: 1000 }));
    expect(rest.map((m) => m.info.pending)).toEqual([1, 0]);
  });

  it('breaking out of a fetch ends it at once', async () => {
    const { consumer } = await streamWithConsumer(3);
    const batch = await consumer.fetch({ max_messages: 10, expires: 20_000 });
    for await (const m of batch) {
      m.ack();
      break;
    }
    const ended = await Promise.race([
      batch.closed().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still open'), 2000)),
    ]);
    expect(ended).toBe('closed');
  });

  it('fetch() ends at expires with what there was (408 from the server)', async () => {
    const { consumer } = await streamWithConsumer(2);
    const started = Date.now();
    const got = await all(await consumer.fetch({ max_messages: 10, expires: 1000 }));
    expect(got).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('fetch() by max_bytes stops before the message that does not fit (409, not a timeout)', async () => {
    const { name, consumer } = await streamWithConsumer(0);
    for (let i = 0; i < 5; i++) await clients.js.publish(`${name}.big`, 'x'.repeat(100));
    const started = Date.now();
    const batch = await consumer.fetch({ max_bytes: 300, expires: 10_000 });
    const got = await all(batch);
    // nats-server counts subject, ack subject and payload (~165 bytes here): 300 bytes hold one
    expect(got).toHaveLength(1);
    expect(await batch.closed()).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('idle heartbeats keep a quiet fetch alive until it expires normally', async () => {
    const { consumer } = await streamWithConsumer(0);
    const batch = await consumer.fetch({ max_messages: 1, expires: 2000, idle_heartbeat: 250 });
    expect(await all(batch)).toEqual([]);
    expect(await batch.closed()).toBeUndefined();
  });

  it('a deleted consumer ends a waiting fetch with 409 Consumer Deleted', async () => {
    const { name, consumer } = await streamWithConsumer(0);
    const batch = await consumer.fetch({ max_messages: 1, expires: 10_000 });
    setTimeout(() => void clients.jsm.consumers.delete(name, 'C'), 200);
    const error = await all(batch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamStatusError);
    expect(error).toMatchObject({ code: 409, message: 'Consumer Deleted' });
    expect(await batch.closed()).toBe(error);
  });

  it('a pull beyond the consumer limits fails with the 409 status', async () => {
    const { consumer } = await streamWithConsumer(3, { max_batch: 2 });
    const error = await all(await consumer.fetch({ max_messages: 5, expires: 2000 })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 409, message: 'Exceeded MaxRequestBatch of 2' });
  });

  it('nak() redelivers, after the delay when one is given', async () => {
    const { consumer } = await streamWithConsumer(1);
    const first = await consumer.next({ expires: 2000 });
    first!.nak();
    const again = await consumer.next({ expires: 2000 });
    expect(again!.info).toMatchObject({ streamSequence: 1, deliveryCount: 2, redelivered: true });
    const nakedAt = Date.now();
    again!.nak(700);
    const third = await consumer.next({ expires: 3000 });
    expect(third!.info.deliveryCount).toBe(3);
    expect(Date.now() - nakedAt).toBeGreaterThanOrEqual(600);
    third!.ack();
  });

  it('term() stops redelivery; working() holds the message past ack_wait', async () => {
    const { consumer } = await streamWithConsumer(2, { ack_wait: 1_000_000_000 });
    const termed = await consumer.next({ expires: 2000 });
    // a reason would make nats-server 2.9 ignore the term: the client leaves it out there
    termed!.term('cannot parse');
    const held = await consumer.next({ expires: 2000 });
    expect(held!.seq).toBe(2);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 400));
      held!.working();
    }
    held!.ack();
    // 1.6 s after delivery, past the 1 s ack_wait: neither message came back
    expect(await consumer.next({ expires: 1500 })).toBeNull();
    expect(await consumer.info()).toMatchObject({ num_ack_pending: 0, num_redelivered: 0 });
  });
});
