import { createInbox } from '@slipstream/client';
import { describe, expect, it } from 'vitest';
import {
  AckPolicy,
  ConsumerNotFoundError,
  JetStreamError,
  type JsMsg,
  StorageType,
} from '../src/mod.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('push consumers against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);

  async function streamWith(
    count: number,
    payload: (i: number) => string | Uint8Array = (i) => `m${i}`,
  ) {
    const name = uniqueStream('P');
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    for (let i = 1; i <= count; i++) clients.nc.publish(`${name}.x`, payload(i));
    await clients.nc.flush();
    return name;
  }

  async function pushConsumer(stream: string, config: Record<string, unknown> = {}) {
    const deliver_subject = createInbox();
    await clients.jsm.consumers.add(stream, {
      durable_name: 'PUSH',
      deliver_subject,
      ack_policy: AckPolicy.Explicit,
      ...config,
    });
    return {
      consumer: await clients.js.consumers.getPushConsumer(stream, 'PUSH'),
      deliver_subject,
    };
  }

  it('delivers to an iterator, acks reach the server', async () => {
    const stream = await streamWith(20);
    const { consumer } = await pushConsumer(stream);
    expect(consumer.isPushConsumer()).toBe(true);
    const messages = await consumer.consume();
    const seqs: number[] = [];
    for await (const m of messages) {
      seqs.push(m.seq);
      m.ack();
      if (m.seq === 20) break;
    }
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await clients.nc.flush();
    expect(await consumer.info()).toMatchObject({ num_ack_pending: 0, num_pending: 0 });
    expect(await messages.closed()).toBeUndefined();
  });

  it('delivers to a callback; an exception of the callback ends the consumption', async () => {
    const stream = await streamWith(5);
    const { consumer } = await pushConsumer(stream);
    const got: string[] = [];
    const messages = await consumer.consume({
      callback: (m: JsMsg) => {
        got.push(m.string());
        m.ack();
        if (m.seq === 3) throw new Error('enough');
      },
    });
    const error = await messages.closed();
    expect(error).toMatchObject({ message: 'enough' });
    expect(got).toEqual(['m1', 'm2', 'm3']);
  });

  it('answers flow control, without which the server stops sending', async () => {
    const big = new Uint8Array(64 * 1024);
    const stream = await streamWith(600, () => big); // ~38 MiB
    const { consumer, deliver_subject } = await pushConsumer(stream, {
      ack_policy: AckPolicy.None,
      flow_control: true,
      // a stalled consumer also wakes up on its heartbeat: a long one shows a missed reply
      idle_heartbeat: 60_000_000_000,
    });
    let flowControlRequests = 0;
    const spy = clients.nc.subscribe(deliver_subject, {
      callback: (_, m) => {
        if (m?.headers?.description === 'FlowControl Request') flowControlRequests++;
      },
    });
    const started = Date.now();
    const messages = await consumer.consume();
    let count = 0;
    for await (const _ of messages) if (++count === 600) break;
    spy.unsubscribe();
    expect(count).toBe(600);
    expect(flowControlRequests).toBeGreaterThan(0);
    // unanswered, a request would hold delivery up until the next heartbeat, a minute later
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 40_000);

  it('ends on missed heartbeats when the consumer is gone and the caller asked to', async () => {
    const stream = await streamWith(1);
    const { consumer } = await pushConsumer(stream, { idle_heartbeat: 300_000_000 });
    const messages = await consumer.consume({ abort_on_missing_resource: true });
    const started = Date.now();
    const error = await (async () => {
      for await (const m of messages) {
        m.ack();
        await clients.jsm.consumers.delete(stream, 'PUSH');
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsumerNotFoundError);
    expect(await messages.closed()).toBe(error);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('refuses a pull consumer, and a second consume at a time', async () => {
    const stream = await streamWith(0);
    await clients.jsm.consumers.add(stream, {
      durable_name: 'PULL',
      ack_policy: AckPolicy.Explicit,
    });
    await expect(clients.js.consumers.getPushConsumer(stream, 'PULL')).rejects.toBeInstanceOf(
      JetStreamError,
    );
    const { consumer } = await pushConsumer(stream);
    const messages = await consumer.consume();
    await expect(consumer.consume()).rejects.toBeInstanceOf(JetStreamError);
    await messages.close();
  });

  it('ordered: reads in order and replaces a deleted consumer with no loss or duplicate', async () => {
    const stream = await streamWith(50);
    const consumer = await clients.js.consumers.getPushConsumer(stream, {
      name_prefix: 'opush',
      idle_heartbeat: 300,
    });
    const messages = await consumer.consume();
    const seqs: number[] = [];
    const used = new Set<string>();
    for await (const m of messages) {
      seqs.push(m.seq);
      used.add(m.info.consumer);
      if (m.seq === 20) await clients.jsm.consumers.delete(stream, m.info.consumer);
      if (m.seq === 50) await clients.js.publish(`${stream}.x`, 'late');
      if (m.seq === 51) break;
    }
    expect(seqs).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(used.has('opush_1')).toBe(true);
    expect(used.has('opush_2')).toBe(true);
    expect(await consumer.info(true)).toMatchObject({
      config: { flow_control: true, ack_policy: 'none' },
    });
  });
});
