/**
 * Ours as a drop-in for @nats-io/jetstream 3: the same consumer-driving code runs with the
 * official client and with ours against the same server, once per public member of nats.js's
 * ConsumerMessages, Consumer, PushConsumer and JsMsg, and both must observe the same. The
 * tables are typed by nats.js's own types, so a member they add is a compile error here
 * until it has its case; and ours must have every one of those members (`Missing` below).
 * A bucket made with `allow_direct: false` gets a stream without it, with either KV client.
 */
import type {
  Consumer as TheirConsumer,
  ConsumerMessages as TheirConsumerMessages,
  JetStreamClient as TheirJetStreamClient,
  JsMsg as TheirJsMsg,
  PushConsumer as TheirPushConsumer,
} from '@nats-io/jetstream';
import { jetstream as officialJetstream } from '@nats-io/jetstream';
import { Kvm as OfficialKvm } from '@nats-io/kv';
import { createInbox, headers } from '@slipstream/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Kvm } from '../src/kv/mod.js';
import {
  AckPolicy,
  type Consumer,
  type ConsumerMessages,
  type JsMsg,
  type PushConsumer,
  StorageType,
} from '../src/mod.js';
import { useOfficialConnection } from './official.js';
import { streamServers, uniqueStream, useJetStreamClients } from './servers.js';

/** The members of nats.js's type `Theirs` that ours lacks. */
type Missing<Theirs, Ours> = Exclude<keyof Theirs, keyof Ours>;
const oursHasEveryMember: [
  Missing<TheirConsumerMessages, ConsumerMessages>,
  Missing<TheirConsumer, Consumer>,
  Missing<TheirPushConsumer, PushConsumer>,
  Missing<TheirJsMsg, JsMsg>,
] extends [never, never, never, never]
  ? true
  : false = true;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One client as the driving code sees it: nats.js's API (ours is cast to it). */
interface Side {
  js: TheirJetStreamClient;
  /** Flushes the side's connection: its acks have reached the server. */
  flush(): Promise<void>;
}

/** What a case observes; compared between the two clients. */
type Case = (side: Side) => Promise<unknown>;

describe.each(streamServers)(
  'the same consumer code with nats.js and ours against $name',
  (kind) => {
    const { server, clients } = useJetStreamClients(kind);
    const official = useOfficialConnection(server);
    let sides: { theirs: Side; ours: Side };
    beforeAll(() => {
      sides = {
        theirs: { js: officialJetstream(official.nc), flush: () => official.nc.flush() },
        ours: {
          js: clients.js as unknown as TheirJetStreamClient,
          flush: () => clients.nc.flush(),
        },
      };
    });

    /**
     * A stream of `count` messages `"m<i>"` (JSON strings; the first with header X-K: v) and a
     * durable consumer C on it: pull, or push on a fresh inbox. Explicit acks.
     */
    async function prepare(count: number, push = false) {
      const stream = uniqueStream('PAR');
      const { jsm, js } = clients;
      await jsm.streams.add({
        name: stream,
        subjects: [`${stream}.*`],
        storage: StorageType.Memory,
      });
      for (let i = 1; i <= count; i++) {
        const h = headers();
        h.set('X-K', 'v');
        await js.publish(`${stream}.${i}`, JSON.stringify(`m${i}`), i === 1 ? { headers: h } : {});
      }
      await jsm.consumers.add(stream, {
        durable_name: 'C',
        ack_policy: AckPolicy.Explicit,
        ...(push ? { deliver_subject: createInbox() } : {}),
      });
      return stream;
    }

    const pull = async (side: Side, count: number) => {
      const stream = await prepare(count);
      return { stream, consumer: await side.js.consumers.get(stream, 'C') };
    };
    const push = async (side: Side, count: number) => {
      const stream = await prepare(count, true);
      return { stream, consumer: await side.js.consumers.getPushConsumer(stream, 'C') };
    };

    async function until(done: () => boolean): Promise<void> {
      for (const end = Date.now() + 5000; !done(); await sleep(10)) {
        if (Date.now() > end) throw new Error('timed out waiting');
      }
    }

    const counts = (m: TheirConsumerMessages) => ({
      processed: m.getProcessed(),
      pending: m.getPending(),
      received: m.getReceived(),
    });

    /**
     * Counts of an iterator with 5 messages received and 1 taken, then with the last taken
     * (after the loop nats.js 3.4 counts its own end marker as pending: not compared).
     */
    const iteratorCounts: Case = async (side) => {
      const { consumer } = await pull(side, 5);
      const batch = await consumer.fetch({ max_messages: 5, expires: 2000 });
      const seen: ReturnType<typeof counts>[] = [];
      for await (const m of batch) {
        if (m.seq === 1) await until(() => batch.getReceived() === 5);
        if (m.seq === 1 || m.seq === 5) seen.push(counts(batch));
      }
      return seen;
    };

    /** Counts of a consume by callback once the 5 messages came. */
    const callbackCounts: Case = async (side) => {
      const { consumer } = await pull(side, 5);
      let got = 0;
      const messages = await consumer.consume({ callback: () => void got++ });
      await until(() => got === 5);
      const seen = counts(messages);
      messages.stop();
      return seen;
    };

    const countsAlike: Case = async (side) => ({
      iterator: await iteratorCounts(side),
      callback: await callbackCounts(side),
    });

    const consumerMessages: Record<keyof TheirConsumerMessages, Case> = {
      [Symbol.asyncIterator]: async (side) => {
        const { consumer } = await pull(side, 5);
        const seen: string[] = [];
        for await (const m of await consumer.fetch({ max_messages: 3, expires: 2000 })) {
          seen.push(m.json());
        }
        return seen;
      },
      stop: async (side) => {
        const { consumer } = await pull(side, 5);
        // by callback: none after the stop
        const byCallback: number[] = [];
        const messages = await consumer.consume({
          callback: (m) => {
            byCallback.push(m.seq);
            if (byCallback.length === 2) messages.stop();
          },
        });
        const closed = await messages.closed();
        await sleep(200);
        // with an error: the iterator throws it, closed() resolves with it
        const other = await pull(side, 5);
        const iterated = await other.consumer.consume({ max_messages: 1 });
        const byIterator: number[] = [];
        let thrown: unknown;
        try {
          for await (const m of iterated) {
            byIterator.push(m.seq);
            iterated.stop(new Error('boom'));
          }
        } catch (error) {
          thrown = error;
        }
        return {
          byCallback,
          closed,
          byIterator,
          thrown: (thrown as Error)?.message,
          closedWith: ((await iterated.closed()) as Error)?.message,
        };
      },
      close: async (side) => {
        const { consumer } = await pull(side, 5);
        const messages = await consumer.consume({ max_messages: 1 });
        const seen: number[] = [];
        let closing: ReturnType<TheirConsumerMessages['close']> | undefined;
        for await (const m of messages) {
          seen.push(m.seq);
          closing ??= messages.close();
        }
        return { seen, closed: await closing };
      },
      closed: async (side) => {
        const { stream, consumer } = await pull(side, 5);
        const batch = await consumer.fetch({ max_messages: 2, expires: 2000 });
        for await (const _ of batch);
        const normal = await batch.closed();
        await clients.jsm.consumers.delete(stream, 'C');
        const failing = await consumer.fetch({ max_messages: 2, expires: 2000 });
        const thrown = await (async () => {
          for await (const _ of failing);
        })().then(
          () => undefined,
          (error: unknown) => error instanceof Error,
        );
        return { normal, thrown, failed: (await failing.closed()) instanceof Error };
      },
      status: async (side) => {
        const { consumer } = await pull(side, 5);
        const batch = await consumer.fetch({ max_messages: 2, expires: 2000 });
        const told: string[] = [];
        const watching = (async () => {
          for await (const n of batch.status()) {
            told.push(n.type === 'next' ? `next ${n.options.batch}` : n.type);
          }
        })();
        for await (const _ of batch);
        await watching;
        return told;
      },
      getProcessed: countsAlike,
      getPending: countsAlike,
      getReceived: countsAlike,
    };

    const consumerMembers: Record<keyof TheirConsumer, Case> = {
      next: async (side) => {
        const { consumer } = await pull(side, 2);
        const first = await consumer.next({ expires: 1000 });
        first?.ack();
        const second = await consumer.next({ expires: 1000, bind: true });
        second?.ack();
        return [first?.seq, second?.seq, await consumer.next({ expires: 1000 })];
      },
      fetch: async (side) => {
        const { consumer } = await pull(side, 5);
        const iterated: number[] = [];
        for await (const m of await consumer.fetch({ max_messages: 2, expires: 2000 })) {
          iterated.push(m.seq);
          m.ack();
        }
        // nats.js honours a callback in fetch (its FetchOptions type leaves it out)
        const byCallback: number[] = [];
        const batch = await consumer.fetch({
          max_messages: 2,
          expires: 2000,
          callback: (m: TheirJsMsg) => byCallback.push(m.seq),
        } as Parameters<TheirConsumer['fetch']>[0]);
        await batch.closed();
        return { iterated, byCallback, counts: counts(batch) };
      },
      consume: async (side) => {
        const { consumer } = await pull(side, 5);
        const seen: number[] = [];
        const messages = await consumer.consume({
          max_messages: 2,
          callback: (m) => {
            seen.push(m.seq);
            m.ack();
          },
        });
        await until(() => seen.length === 5);
        const iteration = await (async () => {
          for await (const _ of messages);
        })().then(
          () => 'iterated',
          (error: Error) => error.message,
        );
        messages.stop();
        return { seen, iteration, closed: await messages.closed() };
      },
      info: async (side) => {
        const { consumer } = await pull(side, 3);
        const live = await consumer.info();
        const cached = await consumer.info(true);
        return [live.name, live.num_pending, cached.name];
      },
      delete: async (side) => {
        const { consumer } = await pull(side, 1);
        const deleted = await consumer.delete();
        const after = await consumer.info().then(
          () => 'still there',
          (error: Error) => error.message,
        );
        return { deleted, after };
      },
      isPullConsumer: async (side) => (await pull(side, 0)).consumer.isPullConsumer(),
      isPushConsumer: async (side) => (await pull(side, 0)).consumer.isPushConsumer(),
    };

    const pushConsumerMembers: Record<keyof TheirPushConsumer, Case> = {
      consume: async (side) => {
        const { consumer } = await push(side, 5);
        const seen: number[] = [];
        const messages = await consumer.consume();
        for await (const m of messages) {
          seen.push(m.seq);
          m.ack();
          if (m.seq === 5) break;
        }
        // nats.js 3.4 counts received messages of a push consumer only with a callback (its
        // iterator reports 0): processed and pending are compared
        const { processed, pending } = counts(messages);
        const afterBreak = { processed, pending };
        const again = await push(side, 3);
        const byCallback: number[] = [];
        const pushed = await again.consumer.consume({
          callback: (m) => void byCallback.push(m.seq),
        });
        await until(() => byCallback.length === 3);
        pushed.stop();
        return {
          seen,
          afterBreak,
          byCallback,
          counts: counts(pushed),
          closed: await pushed.closed(),
        };
      },
      info: async (side) => {
        const { consumer } = await push(side, 2);
        const info = await consumer.info();
        return [info.name, info.num_pending, info.config.deliver_subject?.startsWith('_INBOX.')];
      },
      delete: async (side) => {
        const { consumer } = await push(side, 1);
        return consumer.delete();
      },
      isPullConsumer: async (side) => (await push(side, 0)).consumer.isPullConsumer(),
      isPushConsumer: async (side) => (await push(side, 0)).consumer.isPushConsumer(),
    };

    /** The first message of a fresh consumer, and a look at the consumer's acks after `act`. */
    async function withFirst(side: Side, act: (m: TheirJsMsg, stream: string) => Promise<unknown>) {
      const { stream, consumer } = await pull(side, 3);
      const m = (await consumer.next({ expires: 1000 }))!;
      const observed = await act(m, stream);
      await side.flush();
      // nats-server takes an ack off the publisher's connection in the consumer's own goroutine,
      // so a flush does not promise it is counted (a CI run saw nats.js's ack still pending):
      // the state is read until two reads 25 ms apart agree.
      const acks = async () => {
        const info = await clients.jsm.consumers.info(stream, 'C');
        return { ackFloor: info.ack_floor.stream_seq, ackPending: info.num_ack_pending };
      };
      let state = await acks();
      for (let reads = 0; reads < 20; reads++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        const again = await acks();
        const settled = again.ackFloor === state.ackFloor && again.ackPending === state.ackPending;
        state = again;
        if (settled) break;
      }
      return { observed, ...state };
    }
    const look = (read: (m: TheirJsMsg, stream: string) => unknown) => (side: Side) =>
      withFirst(side, async (m, stream) => read(m, stream));

    const jsMsgMembers: Record<keyof TheirJsMsg | 'msg' | 'reply', Case> = {
      subject: look((m, stream) => m.subject.replace(stream, '<stream>')),
      sid: look((m) => typeof m.sid),
      data: look((m) => new TextDecoder().decode(m.data)),
      headers: look((m) => m.headers?.get('X-K')),
      info: look((m, stream) => ({
        ...m.info,
        stream: m.info.stream === stream,
        timestampNanos: typeof m.info.timestampNanos,
      })),
      redelivered: look((m) => m.redelivered),
      seq: look((m) => m.seq),
      time: look((m) => m.time instanceof Date && m.time.toISOString() === m.timestamp),
      timestamp: look((m) => typeof m.timestamp),
      timestampNanos: look((m) => Number(m.timestampNanos / 1_000_000n) === m.time.getTime()),
      json: look((m) => m.json()),
      string: look((m) => m.string()),
      msg: look((m) => {
        const { msg } = m as unknown as { msg: { subject: string; reply?: string } };
        return [msg.subject === m.subject, msg.reply?.startsWith('$JS.ACK.')];
      }),
      reply: look((m) => (m as unknown as { reply: string }).reply.startsWith('$JS.ACK.')),
      ack: (side) => withFirst(side, async (m) => m.ack()),
      term: (side) => withFirst(side, async (m) => m.term()),
      working: (side) =>
        withFirst(side, async (m) => {
          m.working();
          m.working();
        }),
      nak: async (side) => {
        const { consumer } = await pull(side, 1);
        (await consumer.next({ expires: 1000 }))!.nak();
        const again = await consumer.next({ expires: 2000 });
        return [again?.seq, again?.redelivered, again?.info.deliveryCount];
      },
      ackAck: (side) => withFirst(side, async (m) => [await m.ackAck(), await m.ackAck()]),
      next: (side) =>
        withFirst(side, async (m) => {
          const inbox = createInbox();
          const sub = clients.nc.subscribe(inbox, { max: 2 });
          await clients.nc.flush();
          m.next(inbox, { batch: 2 });
          const seqs: string[] = [];
          for await (const more of sub) seqs.push(more.string());
          return seqs;
        }),
    };

    const tables = {
      ConsumerMessages: consumerMessages,
      Consumer: consumerMembers,
      PushConsumer: pushConsumerMembers,
      JsMsg: jsMsgMembers,
    } as Record<string, Record<string | symbol, Case>>;
    const cases = Object.entries(tables).flatMap(([type, table]) =>
      Reflect.ownKeys(table).map((member) => ({
        name: `${type}.${String(member)}`,
        run: table[member]!,
      })),
    );

    it('ours has every public member nats.js types', () => {
      expect(oursHasEveryMember).toBe(true);
      expect(cases).toHaveLength(8 + 7 + 5 + 20);
    });

    it.each(cases)('$name exists and behaves as in nats.js', async ({ run }) => {
      const theirs = await run(sides.theirs);
      const ours = await run(sides.ours);
      expect(ours).toEqual(theirs);
    });

    it('a bucket created with allow_direct false has a stream without it, with either client', async () => {
      const config = async (kvm: Kvm | OfficialKvm, allow_direct?: boolean) => {
        const name = uniqueStream('KD');
        await kvm.create(name, allow_direct === undefined ? {} : { allow_direct });
        return (await clients.jsm.streams.info(`KV_${name}`)).config.allow_direct;
      };
      const ours = new Kvm(clients.js);
      const theirs = new OfficialKvm(official.nc);
      expect([
        await config(theirs, false),
        await config(theirs, true),
        await config(theirs),
      ]).toEqual([false, true, true]);
      expect([await config(ours, false), await config(ours, true), await config(ours)]).toEqual([
        false,
        true,
        true,
      ]);
      // and reads work without direct gets
      const name = uniqueStream('KR');
      const kv = await ours.create(name, { allow_direct: false });
      await kv.put('k', 'v');
      expect((await kv.get('k'))?.string()).toBe('v');
    });
  },
);
