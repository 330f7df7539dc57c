import { ClosedConnectionError, connect, createInbox } from '@slipstream/client';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kvm } from '../src/kv/mod.js';
import {
  type Consumer,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  StorageType,
  StreamNotFoundError,
} from '../src/mod.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('ordered consumers against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);

  async function streamWith(count: number) {
    const name = uniqueStream('O');
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    for (let i = 1; i <= count; i++)
      clients.nc.publish(`${name}.${i % 2 ? 'odd' : 'even'}`, `m${i}`);
    await clients.nc.flush();
    return name;
  }

  it('consume() reads the stream in order, then what comes later, with no acks', async () => {
    const name = await streamWith(30);
    const consumer = await clients.js.consumers.get(name);
    const messages = await consumer.consume({ max_messages: 7, expires: 2000 });
    const seqs: number[] = [];
    for await (const m of messages) {
      seqs.push(m.seq);
      if (m.seq === 30) await clients.js.publish(`${name}.late`, 'late');
      if (m.seq === 31) break;
    }
    expect(seqs).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    const info = await consumer.info(true);
    expect(info.config).toMatchObject({ ack_policy: 'none', mem_storage: true, max_deliver: 1 });
    expect(info.config.durable_name).toBeUndefined();
  });

  it('recreates its consumer when it is deleted mid-consume: no loss, no duplicate', async () => {
    const name = await streamWith(100);
    const consumer = await clients.js.consumers.get(name, { name_prefix: 'ord' });
    const messages = await consumer.consume({ max_messages: 10, expires: 5000 });
    const seqs: number[] = [];
    const consumersUsed = new Set<string>();
    for await (const m of messages) {
      seqs.push(m.seq);
      consumersUsed.add(m.info.consumer);
      if (m.seq === 25 || m.seq === 60) await clients.jsm.consumers.delete(name, m.info.consumer);
      if (m.seq === 100) break;
    }
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect([...consumersUsed]).toEqual(['ord_1', 'ord_2', 'ord_3']);
    expect(await messages.closed()).toBeUndefined();
  });

  it('recreates its consumer on a sequence gap and delivers what it missed', async () => {
    const name = await streamWith(6);
    const consumer = await clients.js.consumers.get(name, { name_prefix: 'gap' });
    const messages = await consumer.consume({ max_messages: 1, threshold_messages: 0 });
    const seqs: number[] = [];
    const used = new Set<string>();
    for await (const m of messages) {
      seqs.push(m.seq);
      used.add(m.info.consumer);
      if (m.seq === 1) {
        // another reader takes a message from the same consumer: the next delivery skips one
        // (on an inbox of its own: a pulled message keeps its subject, no request mux routes it);
        // the consume asks for m2 only once this reader is done with m1, as nats.js does
        const inbox = createInbox();
        const thief = clients.nc.subscribe(inbox, { max: 1 });
        clients.nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${name}.${m.info.consumer}`, '{"batch":1}', {
          reply: inbox,
        });
        for await (const stolen of thief) expect(stolen.string()).toBe('m2');
      }
      if (m.seq === 6) break;
    }
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...used]).toEqual(['gap_1', 'gap_2']);
  });

  it('next() and fetch() go on where the last one stopped, also after a deletion', async () => {
    const name = await streamWith(10);
    const consumer = await clients.js.consumers.get(name, {});
    expect((await consumer.next({ expires: 1000 }))?.seq).toBe(1);
    const read = async (c: Consumer, max: number) => {
      const seqs: number[] = [];
      for await (const m of await c.fetch({ max_messages: max, expires: 1000 })) seqs.push(m.seq);
      return seqs;
    };
    expect(await read(consumer, 4)).toEqual([2, 3, 4, 5]);
    await consumer.delete();
    expect(await read(consumer, 3)).toEqual([6, 7, 8]);
    const { name: inUse } = await consumer.info(true);
    await clients.jsm.consumers.delete(name, inUse);
    // this fetch finds nothing on a consumer that is gone, and the next one replaces it
    expect(await read(consumer, 5)).toEqual([]);
    expect(await read(consumer, 5)).toEqual([9, 10]);
    expect(await consumer.next({ expires: 1000 })).toBeNull();
  });

  it('reads from the start point and the filter it was given', async () => {
    const name = await streamWith(10);
    const consumer = await clients.js.consumers.get(name, {
      filter_subjects: `${name}.even`,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: 5,
    });
    const batch = await consumer.fetch({ max_messages: 10, expires: 1000 });
    const got: string[] = [];
    for await (const m of batch) got.push(m.string());
    expect(got).toEqual(['m6', 'm8', 'm10']);
  });

  it('ends consume() when its connection closes', async () => {
    const name = await streamWith(3);
    const own = await server.connect();
    const messages = await jetstream(own)
      .consumers.get(name)
      .then((c) => c.consume());
    const seqs: number[] = [];
    const ended = (async () => {
      for await (const m of messages) {
        seqs.push(m.seq);
        if (m.seq === 3) await own.close();
      }
    })().catch((e: unknown) => e);
    expect(await ended).toBeInstanceOf(ClosedConnectionError);
    expect(seqs).toEqual([1, 2, 3]);
  });

  it('fails to consume a stream that does not exist', async () => {
    const consumer = await clients.js.consumers.get('NO_SUCH_STREAM');
    await expect(consumer.consume()).rejects.toBeInstanceOf(StreamNotFoundError);
  });
});

// A restart needs the server in a process of its own: nats-server only.
describe('ordered consumers across a nats-server restart', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'replace the consumer the server lost (%s) and resume after the last message',
    async (signal) => {
      const nc = await connect({ servers: server.url, reconnectTimeWait: 200 });
      const stream = `ORS_${signal}`;
      try {
        const jsm = await jetstreamManager(nc);
        await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
        const js = jetstream(nc);
        for (let i = 1; i <= 5; i++) await js.publish(`${stream}.x`, `before ${i}`);
        const consumer = await js.consumers.get(stream);
        const messages = await consumer.consume({ max_messages: 10, expires: 2000 });
        const seqs: number[] = [];
        const consumersUsed = new Set<string>();
        for await (const m of messages) {
          seqs.push(m.seq);
          consumersUsed.add(m.info.consumer);
          if (m.seq === 3) {
            await server.kill(signal);
            server = await server.restart();
            await js.publish(`${stream}.x`, 'after', { retries: 20 });
          }
          if (m.seq === 6) break;
        }
        expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
        // the in-memory consumer does not survive the restart: a second one took over
        expect(consumersUsed.size).toBe(2);
      } finally {
        await nc.close();
      }
    },
  );

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'carry a KV watch (an ordered consumer) on after a %s with no update lost or repeated',
    async (signal) => {
      const nc = await connect({ servers: server.url, reconnectTimeWait: 200 });
      try {
        const kv = await new Kvm(nc).create(`RESTART_${signal}`);
        await kv.put('k', 'before');
        const watcher = await kv.watch();
        const seen: string[] = [];
        for await (const e of watcher) {
          seen.push(`${e.string()}${e.isUpdate ? '' : ' (initial)'}`);
          if (seen.length === 1) {
            await server.kill(signal);
            server = await server.restart();
            await jetstream(nc).publish(`$KV.RESTART_${signal}.k`, 'after', { retries: 20 });
          }
          if (seen.length === 2) break;
        }
        expect(seen).toEqual(['before (initial)', 'after']);
      } finally {
        await nc.close();
      }
    },
  );
});
