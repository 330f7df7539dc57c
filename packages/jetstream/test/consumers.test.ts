import { jsErrors } from '@slipstream/jsapi';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AckPolicy,
  ConsumerNotFoundError,
  DeliverPolicy,
  InvalidNameError,
  StorageType,
  StreamNotFoundError,
} from '../src/mod.js';
import { expectApiError } from './api-errors.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('consumers against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  let stream: string;
  beforeAll(async () => {
    stream = uniqueStream();
    await clients.jsm.streams.add({
      name: stream,
      subjects: [`${stream}.>`],
      storage: StorageType.Memory,
    });
    for (const s of ['a', 'b', 'a']) clients.nc.publish(`${stream}.${s}`, s);
    await clients.nc.flush();
  });

  it('adds a durable consumer and reads its info', async () => {
    const added = await clients.jsm.consumers.add(stream, {
      durable_name: 'D1',
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    expect(added).toMatchObject({ stream_name: stream, name: 'D1', num_pending: 3 });
    expect(added.config).toMatchObject({ durable_name: 'D1', ack_policy: 'explicit' });
    const info = await clients.jsm.consumers.info(stream, 'D1');
    expect(info).toMatchObject({ name: 'D1', num_pending: 3, num_ack_pending: 0 });
    expect(info.delivered).toMatchObject({ consumer_seq: 0, stream_seq: 0 });
  });

  it('adds a filtered consumer (the filter travels in the create subject)', async () => {
    const subjects: string[] = [];
    const spy = clients.nc.subscribe(`$JS.API.CONSUMER.CREATE.${stream}.>`, {
      callback: (_e, m) => {
        subjects.push(m.subject);
      },
    });
    const info = await clients.jsm.consumers.add(stream, {
      durable_name: 'ONLY_A',
      filter_subject: `${stream}.a`,
      ack_policy: AckPolicy.Explicit,
    });
    // the spy's copy of the request can arrive after the reply; a PING round trip brings it
    await clients.nc.flush();
    spy.unsubscribe();
    expect(info.num_pending).toBe(2);
    expect(subjects).toEqual([`$JS.API.CONSUMER.CREATE.${stream}.ONLY_A.${stream}.a`]);
    const wild = await clients.jsm.consumers.add(stream, {
      durable_name: 'WILD',
      filter_subject: `${stream}.*`,
      ack_policy: AckPolicy.Explicit,
    });
    expect(wild.num_pending).toBe(3);
  });

  it('adds an ephemeral consumer with a server-chosen name', async () => {
    const info = await clients.jsm.consumers.add(stream, { ack_policy: AckPolicy.None });
    expect(info.name).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(info.config.durable_name).toBeUndefined();
    expect((await clients.jsm.consumers.info(stream, info.name)).name).toBe(info.name);
  });

  it('updates the given fields and keeps the rest', async () => {
    await clients.jsm.consumers.add(stream, {
      durable_name: 'UPD',
      ack_policy: AckPolicy.Explicit,
      max_deliver: 5,
    });
    const info = await clients.jsm.consumers.update(stream, 'UPD', {
      description: 'orders',
      max_deliver: 7,
    });
    expect(info.config).toMatchObject({
      durable_name: 'UPD',
      description: 'orders',
      max_deliver: 7,
      ack_policy: 'explicit',
    });
    const changed = clients.jsm.consumers.update(stream, 'UPD', { ack_policy: AckPolicy.None });
    const error = await expectApiError(changed, 500, 10012);
    expect(error.message).toContain('ack policy can not be updated');
  });

  it('deletes a consumer; a missing one is ConsumerNotFoundError 404/10014', async () => {
    await clients.jsm.consumers.add(stream, {
      durable_name: 'GONE',
      ack_policy: AckPolicy.Explicit,
    });
    expect(await clients.jsm.consumers.delete(stream, 'GONE')).toBe(true);
    for (const call of [
      clients.jsm.consumers.info(stream, 'GONE'),
      clients.jsm.consumers.delete(stream, 'GONE'),
      clients.jsm.consumers.update(stream, 'GONE', { description: 'x' }),
    ]) {
      const error = await expectApiError(call, 404, 10014, ConsumerNotFoundError);
      expect(error.is(jsErrors.JSConsumerNotFoundErr)).toBe(true);
    }
  });

  it('reports a missing stream as StreamNotFoundError 404/10059', async () => {
    const missing = uniqueStream('MISSING');
    const calls = [
      clients.jsm.consumers.add(missing, { durable_name: 'X', ack_policy: AckPolicy.Explicit }),
      clients.jsm.consumers.info(missing, 'X'),
      clients.jsm.consumers.delete(missing, 'X'),
      clients.jsm.consumers.list(missing).next(),
    ];
    for (const call of calls) await expectApiError(call, 404, 10059, StreamNotFoundError);
  });

  it('refuses names the server could not address', async () => {
    await expect(clients.jsm.consumers.info(stream, 'a.b')).rejects.toBeInstanceOf(
      InvalidNameError,
    );
    await expect(
      clients.jsm.consumers.add(stream, { durable_name: 'a*', ack_policy: AckPolicy.Explicit }),
    ).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('lists the consumers of a stream', async () => {
    const listed = new Set<string>();
    for await (const info of clients.jsm.consumers.list(stream)) listed.add(info.name);
    for (const name of ['D1', 'ONLY_A', 'WILD', 'UPD']) expect(listed.has(name)).toBe(true);
    expect(listed.has('GONE')).toBe(false);
  });
});
