import { createInbox, InvalidArgumentError, InvalidOperationError } from '@slipstream/client';
import { nanos } from '@slipstream/jsapi';
import { describe, expect, it } from 'vitest';
import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerNotification,
  JetStreamStatusError,
  StreamNotFoundError,
} from '../src/mod.js';
import { all } from './all.js';
import { collectNotifications } from './notifications.js';
import { memoryStream, streamServers, useJetStreamClients } from './servers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const types = (seen: ConsumerNotification[]) => seen.map((n) => n.type);

/** Waits up to 5 s for a notification like `expected` among `seen`. */
async function notified(seen: ConsumerNotification[], expected: ConsumerNotification) {
  const like = JSON.stringify(expected);
  for (const end = Date.now() + 5000; Date.now() < end; await sleep(50)) {
    if (seen.some((n) => JSON.stringify(n) === like)) return;
  }
  throw new Error(`no ${like} in 5 s; saw ${JSON.stringify(seen)}`);
}

describe.each(streamServers)(
  'status() of fetch, push and ordered consumers against $name',
  (kind) => {
    const { clients } = useJetStreamClients(kind);

    async function streamWith(count: number, payload: Uint8Array | string = 'm') {
      const name = await memoryStream(clients.jsm);
      for (let i = 0; i < count; i++) clients.nc.publish(`${name}.x`, payload);
      await clients.nc.flush();
      return name;
    }

    /** A durable push consumer (explicit acks) on a fresh inbox; resolves with the inbox. */
    async function pushConsumer(stream: string, durable: string, config: Partial<ConsumerConfig>) {
      const deliver_subject = createInbox();
      await clients.jsm.consumers.add(stream, {
        durable_name: durable,
        deliver_subject,
        ack_policy: AckPolicy.Explicit,
        ...config,
      });
      return deliver_subject;
    }

    async function pullConsumer(stream: string, durable = 'C') {
      const info = await clients.jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
      });
      return clients.js.consumers.getConsumerFromInfo(info);
    }

    describe('fetch()', () => {
      it('tells heartbeats and what the expired request left undelivered', async () => {
        const stream = await streamWith(2);
        const consumer = await pullConsumer(stream);
        const batch = await consumer.fetch({ max_messages: 5, expires: 1500, idle_heartbeat: 500 });
        const status = collectNotifications(batch);
        expect((await all(batch)).map((m) => m.seq)).toEqual([1, 2]);
        const seen = await status.done;
        expect(seen).toContainEqual({
          type: 'heartbeat',
          lastConsumerSequence: 2,
          lastStreamSequence: 2,
        });
        expect(seen.at(-1)).toEqual({ type: 'discard', messagesLeft: 3, bytesLeft: 0 });
      });

      it('tells consumer_deleted and ends with it', async () => {
        const stream = await streamWith(0);
        const consumer = await pullConsumer(stream);
        const batch = await consumer.fetch({ max_messages: 1, expires: 10_000 });
        const status = collectNotifications(batch);
        const ended = all(batch).catch((e: unknown) => e);
        await sleep(200);
        await clients.jsm.consumers.delete(stream, 'C');
        expect(await ended).toBeInstanceOf(JetStreamStatusError);
        // the request is sent once the reader starts, and told (as nats.js does)
        expect(await status.done).toEqual([
          {
            type: 'next',
            options: { batch: 1, expires: nanos(10_000), idle_heartbeat: nanos(5000) },
          },
          { type: 'consumer_deleted', code: 409, description: 'Consumer Deleted' },
        ]);
      });

      it('a slow reader is no missed heartbeat: what has come is alive', async () => {
        const stream = await streamWith(3);
        const consumer = await pullConsumer(stream);
        const batch = await consumer.fetch({ max_messages: 5, expires: 4000, idle_heartbeat: 200 });
        const status = collectNotifications(batch);
        const seqs: number[] = [];
        for await (const m of batch) {
          seqs.push(m.seq);
          await sleep(700); // more than two heartbeat intervals on each message
        }
        expect(seqs).toEqual([1, 2, 3]);
        expect(await batch.closed()).toBeUndefined();
        expect(types(await status.done)).not.toContain('heartbeats_missed');
      });

      it('tells missed heartbeats of a request nobody answers, and ends', async () => {
        const stream = await streamWith(0);
        const consumer = await pullConsumer(stream, 'GONE');
        await clients.jsm.consumers.delete(stream, 'GONE');
        // a subscriber takes the requests in the server's place and never answers
        const silent = clients.nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${stream}.GONE`);
        const started = Date.now();
        const batch = await consumer.fetch({
          max_messages: 1,
          expires: 20_000,
          idle_heartbeat: 200,
        });
        const status = collectNotifications(batch);
        await expect(all(batch)).rejects.toMatchObject({ message: 'idle heartbeats missed' });
        expect(types(await status.done)).toEqual(['next', 'heartbeats_missed']);
        expect(Date.now() - started).toBeLessThan(2000);
        silent.unsubscribe();
      });
    });

    describe('push consumers', () => {
      it('tell flow control requests answered and heartbeats', async () => {
        const stream = await streamWith(128, new Uint8Array(64 * 1024)); // 8 MiB
        await pushConsumer(stream, 'PUSH', {
          ack_policy: AckPolicy.None,
          flow_control: true,
          idle_heartbeat: nanos(300),
        });
        const consumer = await clients.js.consumers.getPushConsumer(stream, 'PUSH');
        const messages = await consumer.consume();
        const status = collectNotifications(messages);
        // notifications come as the messages are read
        const reading = all(messages);
        await notified(status.seen, {
          type: 'heartbeat',
          lastConsumerSequence: 128,
          lastStreamSequence: 128,
        });
        await messages.close();
        expect(await reading).toHaveLength(128);
        expect(types(await status.done)).toContain('flow_control');
      });

      it('bound by the deliver subject: consumes, refuses info and delete', async () => {
        const stream = await streamWith(3);
        const deliver_subject = await pushConsumer(stream, 'B', { idle_heartbeat: nanos(300) });
        const bound = await clients.js.consumers.getBoundPushConsumer({
          deliver_subject,
          idle_heartbeat: nanos(300),
        });
        expect(bound.isPushConsumer()).toBe(true);
        await expect(bound.info()).rejects.toBeInstanceOf(InvalidOperationError);
        await expect(bound.delete()).rejects.toBeInstanceOf(InvalidOperationError);
        const messages = await bound.consume();
        const status = collectNotifications(messages);
        const seqs: number[] = [];
        for await (const m of messages) {
          seqs.push(m.seq);
          m.ack();
          if (m.seq === 3) break;
        }
        expect(seqs).toEqual([1, 2, 3]);
        await clients.nc.flush();
        expect(await clients.jsm.consumers.info(stream, 'B')).toMatchObject({ num_ack_pending: 0 });
        expect(types(await status.done)).not.toContain('heartbeats_missed');
      });

      it('bound in the deliver group: two share the messages', async () => {
        const stream = await streamWith(40);
        const deliver_subject = await pushConsumer(stream, 'G', { deliver_group: 'workers' });
        const seqs: number[][] = [[], []];
        const consumptions = await Promise.all(
          seqs.map(async (mine) => {
            const bound = await clients.js.consumers.getBoundPushConsumer({
              deliver_subject,
              deliver_group: 'workers',
              callback: (m) => {
                mine.push(m.seq);
                m.ack();
              },
            });
            return bound.consume();
          }),
        );
        for (const end = Date.now() + 5000; seqs.flat().length < 40 && Date.now() < end; ) {
          await sleep(50);
        }
        await Promise.all(consumptions.map((c) => c.close()));
        expect(seqs.flat().sort((a, b) => a - b)).toEqual(
          Array.from({ length: 40 }, (_, i) => i + 1),
        );
        expect(seqs[0]!.length).toBeGreaterThan(0);
        expect(seqs[1]!.length).toBeGreaterThan(0);
      });

      it('bound to a subject nothing comes to: tells missed heartbeats and keeps waiting', async () => {
        const bound = await clients.js.consumers.getBoundPushConsumer({
          deliver_subject: createInbox(),
          idle_heartbeat: nanos(150),
        });
        const messages = await bound.consume({ abort_on_missing_resource: true });
        const status = collectNotifications(messages);
        await sleep(1000);
        expect(status.seen.slice(0, 2)).toEqual([
          { type: 'heartbeats_missed', count: 2 },
          { type: 'heartbeats_missed', count: 4 },
        ]);
        await messages.close();
        expect(await messages.closed()).toBeUndefined();
      });

      it('bound needs a deliver subject', async () => {
        await expect(
          clients.js.consumers.getBoundPushConsumer({ deliver_subject: '' }),
        ).rejects.toBeInstanceOf(InvalidArgumentError);
      });
    });

    describe('ordered consumers', () => {
      it('consume() tells the underlying pulls, the reset and the recreated consumer', async () => {
        const stream = await streamWith(20);
        const consumer = await clients.js.consumers.get(stream, { name_prefix: 'ord' });
        const messages = await consumer.consume({ max_messages: 5, expires: 2000 });
        const status = collectNotifications(messages);
        const seqs: number[] = [];
        // two requests of 5 at most leave before the reader is past m5: m11 and later come
        // from the consumer that replaced the deleted one
        for await (const m of messages) {
          seqs.push(m.seq);
          if (m.seq === 3) await clients.jsm.consumers.delete(stream, 'ord_1');
          if (m.seq === 15) break;
        }
        expect(seqs).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
        const seen = await status.done;
        expect(seen).toContainEqual({ type: 'reset', name: 'ord_1' });
        expect(seen).toContainEqual({ type: 'ordered_consumer_recreated', name: 'ord_2' });
        expect(seen.findIndex((n) => n.type === 'reset')).toBeLessThan(
          seen.findIndex((n) => n.type === 'ordered_consumer_recreated'),
        );
        expect(types(seen)).toContain('next');
      });

      it.each(['pull', 'push'] as const)(
        'a closed %s consume() deletes its consumer on the server',
        async (flavour) => {
          const stream = await streamWith(5);
          const consumer =
            flavour === 'pull'
              ? await clients.js.consumers.get(stream)
              : await clients.js.consumers.getPushConsumer(stream);
          const messages = await consumer.consume();
          for await (const m of messages) if (m.seq === 2) break;
          await messages.closed();
          const left = async () => (await all(clients.jsm.consumers.list(stream))).length;
          for (const end = Date.now() + 2000; (await left()) > 0 && Date.now() < end; ) {
            await sleep(50);
          }
          expect(await left()).toBe(0);
          // the next consume carries on where the closed one stopped
          const again = await consumer.consume();
          for await (const m of again) {
            expect(m.seq).toBe(3);
            break;
          }
        },
      );

      it('consume() tells stream_not_found and ends when its stream is deleted', async () => {
        const stream = await streamWith(2);
        const consumer = await clients.js.consumers.get(stream);
        const messages = await consumer.consume({ max_messages: 5, expires: 2000 });
        const status = collectNotifications(messages);
        const ended = (async () => {
          for await (const m of messages) {
            if (m.seq === 2) await clients.jsm.streams.delete(stream);
          }
        })().catch((e: unknown) => e);
        expect(await ended).toBeInstanceOf(StreamNotFoundError);
        expect(await status.done).toContainEqual({
          type: 'stream_not_found',
          name: stream,
          consumerCreateFails: 1,
        });
      });

      it('fetch() keeps its consumer for the next fetch', async () => {
        const stream = await streamWith(4);
        const consumer = await clients.js.consumers.get(stream, { name_prefix: 'of' });
        expect((await all(await consumer.fetch({ max_messages: 2, expires: 1000 }))).length).toBe(
          2,
        );
        expect(
          (await all(await consumer.fetch({ max_messages: 2, expires: 1000 }))).map((m) => m.seq),
        ).toEqual([3, 4]);
        expect((await all(clients.jsm.consumers.list(stream))).map((c) => c.name)).toEqual([
          'of_1',
        ]);
      });
    });
  },
);
