import { InvalidArgumentError } from '@slipstream/client';
import { describe, expect, it } from 'vitest';
import { AckPolicy, JetStreamStatusError, type JsMsg, StorageType } from '../src/mod.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('consume() against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);

  async function streamWithConsumer(count: number) {
    const name = uniqueStream();
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    for (let i = 1; i <= count; i++) clients.nc.publish(`${name}.${i}`, `m${i}`);
    await clients.nc.flush();
    await clients.jsm.consumers.add(name, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
    return { name, consumer: await clients.js.consumers.get(name, 'C') };
  }

  it('delivers everything in order, topping up its pulls, and what is published later', async () => {
    const { name, consumer } = await streamWithConsumer(250);
    let pulls = 0;
    const spy = clients.nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${name}.C`, {
      callback: () => {
        pulls++;
      },
    });
    const messages = await consumer.consume({ max_messages: 50, expires: 5000 });
    const seqs: number[] = [];
    for await (const m of messages) {
      seqs.push(m.seq);
      m.ack();
      if (m.seq === 250) clients.nc.publish(`${name}.late`, 'late');
      if (m.seq === 251) break;
    }
    // the spy's copy of the request can arrive after the reply; a PING round trip brings it
    await clients.nc.flush();
    spy.unsubscribe();
    expect(seqs).toEqual(Array.from({ length: 251 }, (_, i) => i + 1));
    // 250 messages at 50 a time: the first pull and many top-ups
    expect(pulls).toBeGreaterThanOrEqual(5);
    expect(await messages.closed()).toBeUndefined();
    await clients.nc.flush();
    expect(await consumer.info()).toMatchObject({ num_ack_pending: 0, num_pending: 0 });
  });

  it('keeps asking across expired requests', async () => {
    const { name, consumer } = await streamWithConsumer(0);
    const messages = await consumer.consume({ max_messages: 10, expires: 1000 });
    setTimeout(() => clients.nc.publish(`${name}.x`, 'after two expiries'), 2500);
    let got: JsMsg | undefined;
    for await (const m of messages) {
      got = m;
      m.ack();
      break;
    }
    expect(got?.string()).toBe('after two expiries');
  });

  it('close() ends the iteration', async () => {
    const { consumer } = await streamWithConsumer(0);
    const messages = await consumer.consume({ expires: 5000 });
    setTimeout(() => void messages.close(), 200);
    const got: JsMsg[] = [];
    for await (const m of messages) got.push(m);
    expect(got).toEqual([]);
    expect(await messages.closed()).toBeUndefined();
  });

  it('ends with 409 Consumer Deleted when the consumer goes away', async () => {
    const { name, consumer } = await streamWithConsumer(1);
    const messages = await consumer.consume({ expires: 5000 });
    const error = await (async () => {
      for await (const m of messages) {
        m.ack();
        await clients.jsm.consumers.delete(name, 'C');
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamStatusError);
    expect(error).toMatchObject({ code: 409, message: 'Consumer Deleted' });
  });

  it('refuses requests shorter than a second', async () => {
    const { consumer } = await streamWithConsumer(0);
    await expect(consumer.consume({ expires: 500 })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
