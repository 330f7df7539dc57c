import { headers, TimeoutError } from '@slipstream/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager, StorageType } from '../src/mod.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('direct get against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  let name: string;
  beforeAll(async () => {
    name = uniqueStream();
    await clients.jsm.streams.add({
      name,
      subjects: [`${name}.>`],
      storage: StorageType.Memory,
      allow_direct: true,
    });
    const h = headers();
    h.set('Order-Id', '1');
    await clients.js.publish(`${name}.a`, 'a1', { headers: h });
    await clients.js.publish(`${name}.b`, 'b1');
    await clients.js.publish(`${name}.a`, JSON.stringify({ n: 2 }));
  });

  it('reads a message by sequence with its headers and place in the stream', async () => {
    const m = await clients.jsm.direct.getMessage(name, { seq: 1 });
    expect(m).toMatchObject({ subject: `${name}.a`, seq: 1 });
    expect(m!.string()).toBe('a1');
    expect(m!.header.get('Order-Id')).toBe('1');
    expect(m!.header.get('Nats-Stream')).toBe(name);
    expect(Math.abs(m!.time.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('reads the last message of a subject through the subject form', async () => {
    const subjects: string[] = [];
    const spy = clients.nc.subscribe(`$JS.API.DIRECT.GET.${name}.>`, {
      callback: (_e, msg) => {
        subjects.push(msg.subject);
      },
    });
    const m = await clients.jsm.direct.getMessage(name, { last_by_subj: `${name}.a` });
    // the spy's copy of the request can arrive after the reply; a PING round trip brings it
    await clients.nc.flush();
    spy.unsubscribe();
    expect(m!.seq).toBe(3);
    expect(m!.json()).toEqual({ n: 2 });
    expect(subjects).toEqual([`$JS.API.DIRECT.GET.${name}.${name}.a`]);
  });

  it('reads the next message of a subject from a sequence', async () => {
    const m = await clients.jsm.direct.getMessage(name, { next_by_subj: `${name}.a`, seq: 2 });
    expect(m!.seq).toBe(3);
  });

  it('answers null for a message that is not there', async () => {
    expect(await clients.jsm.direct.getMessage(name, { seq: 99 })).toBeNull();
    expect(await clients.jsm.direct.getMessage(name, { last_by_subj: `${name}.none` })).toBeNull();
  });

  it('gets no answer from a stream without allow_direct: the call times out', async () => {
    const plain = uniqueStream();
    await clients.jsm.streams.add({
      name: plain,
      subjects: [`${plain}.>`],
      storage: StorageType.Memory,
    });
    const quick = await jetstreamManager(clients.nc, { timeout: 500 });
    const error = await quick.direct.getMessage(plain, { seq: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });
});
