import {
  jetstream as officialJetstream,
  jetstreamManager as officialJetstreamManager,
} from '@nats-io/jetstream';
import { headers as officialHeaders } from '@nats-io/transport-node';
import { headers } from '@slipstream/client';
import { describe, expect, it } from 'vitest';
import { AckPolicy, StorageType } from '../src/mod.js';
import { useOfficialConnection } from './official.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('interop with @nats-io/jetstream against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  const official = useOfficialConnection(server);

  it('what we create and publish, the official client reads', async () => {
    const name = uniqueStream();
    const { jsm } = clients;
    await jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.File });
    await jsm.consumers.add(name, { durable_name: 'READER', ack_policy: AckPolicy.Explicit });
    const { js } = clients;
    const h = headers();
    h.set('Order-Id', '7');
    await js.publish(`${name}.created`, JSON.stringify({ id: 7 }), { headers: h, msgID: 'o-7' });
    await js.publish(`${name}.paid`, new Uint8Array([0, 1, 2, 255]));

    const theirJsm = await officialJetstreamManager(official.nc);
    const info = await theirJsm.streams.info(name);
    expect(info.state.messages).toBe(2);
    expect((await theirJsm.consumers.info(name, 'READER')).num_pending).toBe(2);

    const consumer = await officialJetstream(official.nc).consumers.get(name, 'READER');
    const batch = await consumer.fetch({ max_messages: 2, expires: 5000 });
    const got: { subject: string; bytes: number[]; orderId?: string; msgId?: string }[] = [];
    for await (const m of batch) {
      got.push({
        subject: m.subject,
        bytes: Array.from(m.data),
        orderId: m.headers?.get('Order-Id') || undefined,
        msgId: m.headers?.get('Nats-Msg-Id') || undefined,
      });
      m.ack();
    }
    expect(got).toEqual([
      {
        subject: `${name}.created`,
        bytes: Array.from(new TextEncoder().encode('{"id":7}')),
        orderId: '7',
        msgId: 'o-7',
      },
      { subject: `${name}.paid`, bytes: [0, 1, 2, 255] },
    ]);
  });

  it('what the official client creates and publishes, we read', async () => {
    const name = uniqueStream();
    const theirJsm = await officialJetstreamManager(official.nc);
    await theirJsm.streams.add({ name, subjects: [`${name}.>`] });
    const h = officialHeaders();
    h.set('Source', 'official');
    const theirAck = await officialJetstream(official.nc).publish(`${name}.x`, 'hello', {
      headers: h,
      msgID: 'their-1',
    });
    expect(theirAck.seq).toBe(1);

    const { jsm } = clients;
    expect((await jsm.streams.info(name)).config.subjects).toEqual([`${name}.>`]);
    const stored = await jsm.streams.getMessage(name, { seq: 1 });
    expect(stored!.string()).toBe('hello');
    expect(stored!.header.get('Source')).toBe('official');
    expect(await clients.js.publish(`${name}.x`, 'again', { msgID: 'their-1' })).toEqual({
      stream: name,
      seq: 1,
      duplicate: true,
    });
  });

  it('what the official client publishes, our pull consumer reads and acks', async () => {
    const name = uniqueStream();
    const theirJsm = await officialJetstreamManager(official.nc);
    await theirJsm.streams.add({ name, subjects: [`${name}.>`] });
    await theirJsm.consumers.add(name, { durable_name: 'OURS', ack_policy: 'explicit' });
    const theirJs = officialJetstream(official.nc);
    const h = officialHeaders();
    h.set('Source', 'official');
    await theirJs.publish(`${name}.one`, 'first', { headers: h });
    await theirJs.publish(`${name}.two`, 'second');

    const consumer = await clients.js.consumers.get(name, 'OURS');
    const got: string[] = [];
    for await (const m of await consumer.fetch({ max_messages: 2, expires: 5000 })) {
      got.push(`${m.subject} ${m.string()} ${m.headers?.get('Source') ?? ''}`);
      m.ack();
    }
    expect(got).toEqual([`${name}.one first official`, `${name}.two second `]);
    await clients.nc.flush();
    const info = await theirJsm.consumers.info(name, 'OURS');
    expect(info).toMatchObject({ num_ack_pending: 0, num_pending: 0 });
    expect(info.ack_floor.stream_seq).toBe(2);
  });
});
