/**
 * The official JetStream client (@nats-io/jetstream 3) using the consumer features of
 * nats-server 2.10 and 2.11 against slipstream-server: several filter subjects, metadata and
 * the stream's consumer_limits, pause / resume, pinned_client priority groups with fetch and
 * consume, unpin, and overflow. The client gates these on the server version: it enables them
 * from 2.11.0 on, which our server's INFO (2.12.0) passes.
 */
import { AckPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { useOfficialJetStream } from './official.js';
import { ourServers, uniqueStream, useJetStreamServer } from './servers.js';

describe.each(ourServers)(
  'official client, 2.10 / 2.11 consumer features, against $name',
  (kind) => {
    const server = useJetStreamServer(kind);
    let js: JetStreamClient;
    let jsm: JetStreamManager;
    useOfficialJetStream(server, (clients) => {
      ({ js, jsm } = clients);
    });

    async function streamWith(subjects: string[], limits?: { max_ack_pending: number }) {
      const name = uniqueStream('OC11');
      await jsm.streams.add({
        name,
        subjects: [`${name}.>`],
        ...(limits ? { consumer_limits: limits } : {}),
      });
      for (const [i, subject] of subjects.entries())
        await js.publish(`${name}.${subject}`, `m${i + 1}`);
      return name;
    }

    async function fetchAll(
      consumer: Awaited<ReturnType<JetStreamClient['consumers']['get']>>,
      options: Record<string, unknown>,
    ) {
      const got: { data: string; pin: string | undefined }[] = [];
      const messages = await consumer.fetch({ max_messages: 10, expires: 1_000, ...options });
      for await (const m of messages) {
        got.push({ data: m.string(), pin: m.headers?.get('Nats-Pin-Id') || undefined });
        m.ack();
      }
      return got;
    }

    it('filter_subjects, metadata and the stream consumer_limits', async () => {
      const name = await streamWith(['a', 'b', 'c', 'a'], { max_ack_pending: 7 });
      const info = await jsm.consumers.add(name, {
        durable_name: 'MF',
        ack_policy: AckPolicy.Explicit,
        filter_subjects: [`${name}.a`, `${name}.c`],
        metadata: { team: 'x' },
      });
      expect(info.config).toMatchObject({
        filter_subjects: [`${name}.a`, `${name}.c`],
        metadata: { team: 'x' },
        max_ack_pending: 7,
      });
      expect(info.num_pending).toBe(3);
      const got = await fetchAll(await js.consumers.get(name, 'MF'), {});
      expect(got.map((m) => m.data)).toEqual(['m1', 'm3', 'm4']);
    });

    it('pause and resume', async () => {
      const name = await streamWith(['a']);
      await jsm.consumers.add(name, { durable_name: 'P', ack_policy: AckPolicy.Explicit });
      const paused = await jsm.consumers.pause(name, 'P', new Date(Date.now() + 60_000));
      expect(paused.paused).toBe(true);
      expect((await jsm.consumers.info(name, 'P')).paused).toBe(true);
      const consumer = await js.consumers.get(name, 'P');
      expect(await fetchAll(consumer, { expires: 1_000 })).toEqual([]);
      const resumed = await jsm.consumers.resume(name, 'P');
      expect(resumed).toMatchObject({ paused: false, pause_until: '0001-01-01T00:00:00Z' });
      expect((await fetchAll(consumer, {})).map((m) => m.data)).toEqual(['m1']);
    });

    it('pinned_client: fetch is pinned, a second fetch without the pin waits, consume keeps its pin', async () => {
      const name = await streamWith(['a', 'b', 'c', 'd']);
      await jsm.consumers.add(name, {
        durable_name: 'PIN',
        ack_policy: AckPolicy.Explicit,
        priority_policy: 'pinned_client',
        priority_groups: ['g'],
      });
      const consumer = await js.consumers.get(name, 'PIN');
      const first = await fetchAll(consumer, { max_messages: 2, group: 'g' });
      const pin = first[0]!.pin;
      expect(first).toEqual([
        { data: 'm1', pin },
        { data: 'm2', pin },
      ]);
      const info = await jsm.consumers.info(name, 'PIN');
      // The client's ConsumerInfo type has no priority_groups; the answer does.
      expect((info as { priority_groups?: unknown }).priority_groups).toMatchObject([
        { group: 'g', pinned_client_id: pin },
      ]);
      // A new fetch is a new client: it carries no pin id and is held off.
      expect(await fetchAll(consumer, { max_messages: 2, expires: 1_000, group: 'g' })).toEqual([]);
      await jsm.consumers.unpin(name, 'PIN', 'g');
      // consume() takes the new pin from the first message and sends it with each pull.
      const messages = await consumer.consume({ max_messages: 1, expires: 1_000, group: 'g' });
      const pins: (string | undefined)[] = [];
      for await (const m of messages) {
        expect(m.string()).toBe(`m${pins.length + 3}`);
        pins.push(m.headers?.get('Nats-Pin-Id'));
        m.ack();
        if (pins.length === 2) break;
      }
      expect(pins[0]).not.toBe(pin);
      expect(pins[1]).toBe(pins[0]);
    });

    it('overflow: min_pending', async () => {
      const name = await streamWith(['a', 'b', 'c', 'd']);
      await jsm.consumers.add(name, {
        durable_name: 'OV',
        ack_policy: AckPolicy.Explicit,
        priority_policy: 'overflow',
        priority_groups: ['g'],
      });
      const consumer = await js.consumers.get(name, 'OV');
      expect(await fetchAll(consumer, { expires: 1_000, group: 'g', min_pending: 100 })).toEqual(
        [],
      );
      const got = await fetchAll(consumer, { expires: 1_000, group: 'g', min_pending: 2 });
      expect(got.map((m) => m.data)).toEqual(['m1', 'm2', 'm3']);
    });
  },
);
