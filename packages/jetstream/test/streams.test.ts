import { headers, InvalidArgumentError } from '@slipstream/client';
import { jsErrors } from '@slipstream/jsapi';
import { describe, expect, it } from 'vitest';
import { InvalidNameError, StorageType, StreamNotFoundError } from '../src/mod.js';
import { expectApiError } from './api-errors.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe.each(streamServers)('streams against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);

  /** A memory stream on `<name>.>` holding the given subjects' messages, in order. */
  async function streamWith(subjects: string[]) {
    const name = uniqueStream();
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    for (const s of subjects) clients.nc.publish(`${name}.${s}`, s);
    await clients.nc.flush();
    return name;
  }

  it('adds a stream and reports it; adding it again with the same config succeeds', async () => {
    const name = uniqueStream();
    const config = { name, subjects: [`${name}.*`], storage: StorageType.Memory };
    const info = await clients.jsm.streams.add(config);
    expect(info.config).toMatchObject({ name, subjects: [`${name}.*`], storage: 'memory' });
    expect(info.state).toMatchObject({ messages: 0, last_seq: 0, consumer_count: 0 });
    expect((await clients.jsm.streams.add(config)).config.name).toBe(name);
  });

  it('refuses the same name with another config with 400/10058', async () => {
    const name = uniqueStream();
    await clients.jsm.streams.add({ name, subjects: [`${name}.a`], storage: StorageType.Memory });
    const error = await expectApiError(
      clients.jsm.streams.add({ name, subjects: [`${name}.b`], storage: StorageType.Memory }),
      400,
      10058,
    );
    expect(error.is(jsErrors.JSStreamNameExistErr)).toBe(true);
  });

  it('refuses a name the server could not address before sending it', async () => {
    await expect(clients.jsm.streams.add({ name: 'a.b' })).rejects.toBeInstanceOf(InvalidNameError);
    await expect(clients.jsm.streams.info('')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('checks the request with the jsapi schema: a body the server would refuse fails with 400/10025', async () => {
    const bad = { name: uniqueStream(), retention: 'forever' } as unknown as { name: string };
    await expectApiError(clients.jsm.streams.add(bad), 400, 10025);
  });

  it('reports a missing stream as StreamNotFoundError 404/10059 on every call', async () => {
    const missing = uniqueStream('MISSING');
    const calls = [
      clients.jsm.streams.info(missing),
      clients.jsm.streams.update(missing, { description: 'x' }),
      clients.jsm.streams.delete(missing),
      clients.jsm.streams.purge(missing),
      clients.jsm.streams.getMessage(missing, { seq: 1 }),
      clients.jsm.streams.deleteMessage(missing, 1),
    ];
    for (const call of calls) {
      const error = await expectApiError(call, 404, 10059, StreamNotFoundError);
      expect(error.message).toBe('stream not found');
      expect(error.entry?.name).toBe('JSStreamNotFoundErr');
    }
  });

  it('updates the given fields and keeps the rest; a storage change is 500/10052', async () => {
    const name = uniqueStream();
    await clients.jsm.streams.add({
      name,
      subjects: [`${name}.>`],
      storage: StorageType.Memory,
      max_msgs: 10,
    });
    const info = await clients.jsm.streams.update(name, { description: 'orders', max_msgs: 20 });
    expect(info.config).toMatchObject({
      name,
      description: 'orders',
      max_msgs: 20,
      subjects: [`${name}.>`],
      storage: 'memory',
    });
    await expectApiError(
      clients.jsm.streams.update(name, { storage: StorageType.File }),
      500,
      10052,
    );
  });

  it('deletes a stream', async () => {
    const name = await streamWith(['a']);
    expect(await clients.jsm.streams.delete(name)).toBe(true);
    await expectApiError(clients.jsm.streams.info(name), 404, 10059, StreamNotFoundError);
  });

  it('reads stream info with per-subject counts when asked', async () => {
    const name = await streamWith(['a', 'a', 'b']);
    const plain = await clients.jsm.streams.info(name);
    expect(plain.state).toMatchObject({ messages: 3, first_seq: 1, last_seq: 3 });
    expect(plain.state.subjects).toBeUndefined();
    const detailed = await clients.jsm.streams.info(name, { subjects_filter: '>' });
    expect(detailed.state.subjects).toEqual({ [`${name}.a`]: 2, [`${name}.b`]: 1 });
  });

  it('finds the stream of a subject and lists names by subject', async () => {
    const name = await streamWith([]);
    expect(await clients.jsm.streams.find(`${name}.x.y`)).toBe(name);
    expect(await collect(clients.jsm.streams.names(`${name}.>`))).toEqual([name]);
    const error = await expectApiError(
      clients.jsm.streams.find('nobody.captures.this'),
      404,
      10059,
      StreamNotFoundError,
    );
    expect(error.message).toContain('nobody.captures.this');
    expect(await collect(clients.jsm.streams.names('nobody.captures.this'))).toEqual([]);
  });

  describe('purge', () => {
    it('purges everything', async () => {
      const name = await streamWith(['a', 'b', 'c']);
      expect(await clients.jsm.streams.purge(name)).toEqual(
        expect.objectContaining({ success: true, purged: 3 }),
      );
      expect((await clients.jsm.streams.info(name)).state).toMatchObject({
        messages: 0,
        first_seq: 4,
      });
    });

    it('purges one subject only', async () => {
      const name = await streamWith(['a', 'b', 'a', 'c']);
      expect((await clients.jsm.streams.purge(name, { filter: `${name}.a` })).purged).toBe(2);
      const { state } = await clients.jsm.streams.info(name, { subjects_filter: '>' });
      expect(state.subjects).toEqual({ [`${name}.b`]: 1, [`${name}.c`]: 1 });
    });

    it('purges below a sequence (exclusive)', async () => {
      const name = await streamWith(['a', 'b', 'c', 'd']);
      expect((await clients.jsm.streams.purge(name, { seq: 3 })).purged).toBe(2);
      expect((await clients.jsm.streams.info(name)).state).toMatchObject({
        messages: 2,
        first_seq: 3,
      });
    });

    it('keeps the newest N, optionally of one subject', async () => {
      const name = await streamWith(['a', 'a', 'a', 'b', 'b']);
      expect((await clients.jsm.streams.purge(name, { filter: `${name}.a`, keep: 1 })).purged).toBe(
        2,
      );
      expect((await clients.jsm.streams.purge(name, { keep: 1 })).purged).toBe(2);
      const { state } = await clients.jsm.streams.info(name);
      expect(state).toMatchObject({ messages: 1, first_seq: 5, last_seq: 5 });
    });

    it('refuses seq and keep together before sending', async () => {
      const name = await streamWith(['a']);
      const both = { seq: 2, keep: 1 } as unknown as { seq: number };
      await expect(clients.jsm.streams.purge(name, both)).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
    });
  });

  describe('messages', () => {
    it('gets a message by sequence, last by subject and next by subject, with headers', async () => {
      const name = uniqueStream();
      await clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
      const h = headers();
      h.set('Trace-Id', 't-1');
      clients.nc.publish(`${name}.a`, JSON.stringify({ n: 1 }));
      clients.nc.publish(`${name}.b`, 'second', { headers: h });
      clients.nc.publish(`${name}.a`, '');
      await clients.nc.flush();

      const bySeq = await clients.jsm.streams.getMessage(name, { seq: 2 });
      expect(bySeq).toMatchObject({ subject: `${name}.b`, seq: 2 });
      expect(bySeq!.string()).toBe('second');
      expect(bySeq!.header.get('Trace-Id')).toBe('t-1');
      expect(bySeq!.time.getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(bySeq!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);

      const last = await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.a` });
      expect(last).toMatchObject({ seq: 3 });
      expect(last!.data).toEqual(new Uint8Array(0));
      expect(last!.header.keys()).toEqual([]);

      const next = await clients.jsm.streams.getMessage(name, {
        next_by_subj: `${name}.a`,
        seq: 2,
      });
      expect(next!.seq).toBe(3);
      const first = await clients.jsm.streams.getMessage(name, { seq: 1 });
      expect(first!.json()).toEqual({ n: 1 });
    });

    it('answers null for a message that is not there', async () => {
      const name = await streamWith(['a']);
      expect(await clients.jsm.streams.getMessage(name, { seq: 99 })).toBeNull();
      expect(
        await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.zzz` }),
      ).toBeNull();
    });

    it('deletes a message, with or without erasing it', async () => {
      const name = await streamWith(['a', 'b', 'c']);
      expect(await clients.jsm.streams.deleteMessage(name, 2)).toBe(true);
      expect(await clients.jsm.streams.deleteMessage(name, 3, false)).toBe(true);
      expect(await clients.jsm.streams.getMessage(name, { seq: 2 })).toBeNull();
      expect(await clients.jsm.streams.getMessage(name, { seq: 3 })).toBeNull();
      expect((await clients.jsm.streams.info(name)).state).toMatchObject({ messages: 1 });
      const gone = await expectApiError(clients.jsm.streams.deleteMessage(name, 2), 400, 10043);
      expect(gone.message).toBe('sequence 2 not found');
    });
  });

  it('lists streams with their info, by subject too', async () => {
    const name = await streamWith(['a']);
    const all = await collect(clients.jsm.streams.list());
    expect(all.map((s) => s.config.name)).toContain(name);
    const mine = await collect(clients.jsm.streams.list(`${name}.a`));
    expect(mine.map((s) => s.config.name)).toEqual([name]);
    expect(mine[0]!.state.messages).toBe(1);
  });

  it('reports the account: streams, usage, limits and API counters', async () => {
    const before = await clients.jsm.getAccountInfo();
    await streamWith(['a']);
    const after = await clients.jsm.getAccountInfo();
    expect(after.streams).toBe(before.streams + 1);
    expect(after.api.total).toBeGreaterThan(before.api.total);
    expect(after.limits).toMatchObject({ max_streams: -1, max_consumers: -1 });
    expect(after.memory).toBeGreaterThan(0);
  });
});
