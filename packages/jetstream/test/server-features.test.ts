import { InvalidArgumentError, type NatsConnection } from '@slipstream/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Feature, serverFeature } from '../src/features.js';
import { AckPolicy, JetStreamError } from '../src/mod.js';
import { all } from './all.js';
import {
  memoryStream,
  ourServers,
  presentAs,
  streamServers,
  uniqueStream,
  useJetStreamClients,
} from './servers.js';

const serverOf = (version: string) => ({ info: { version } }) as unknown as NatsConnection;

describe('serverFeature', () => {
  it.each([
    ['2.9.10', 'JS_MULTIPLE_CONSUMER_FILTER', false],
    ['2.10.0', 'JS_MULTIPLE_CONSUMER_FILTER', true],
    ['2.10.0-RC.3', 'JS_MULTIPLE_CONSUMER_FILTER', true],
    ['2.10.22', 'JS_PRIORITY_GROUPS', false],
    ['2.11.0', 'JS_PRIORITY_GROUPS', true],
    ['2.11.17', 'JS_CONSUMER_PAUSE', true],
    ['3.0.0', 'JS_MSG_TTL', true],
  ] as const)('a %s server has %s: %s', (version, feature, ok) => {
    expect(serverFeature(serverOf(version), feature)).toEqual({ ok, min: Feature[feature] });
  });

  it('knows nothing of a server before its INFO', () => {
    expect(serverFeature({ info: undefined } as NatsConnection, 'JS_STREAM_COMPRESSION').ok).toBe(
      false,
    );
  });
});

// nats-server 2.9.10 as it is; ours (which has these features) presented as 2.9.10.
describe.each(streamServers)('fields newer than the server against $name as 2.9.10', (kind) => {
  const { clients } = useJetStreamClients(kind);
  beforeAll(() => presentAs(clients.nc, '2.9.10'));

  /** Runs `call` and answers what it threw and how many API requests left meanwhile. */
  async function refused(call: () => Promise<unknown>) {
    let requests = 0;
    const spy = clients.nc.subscribe('$JS.API.>', {
      callback: () => {
        requests++;
      },
    });
    await clients.nc.flush();
    const error = await call().catch((e: unknown) => e);
    await clients.nc.flush();
    spy.unsubscribe();
    return { error, requests };
  }

  it.each([
    [{ metadata: { team: 'a' } }, "stream 'metadata' requires server 2.10.0"],
    [{ compression: 's2' as const }, "stream 'compression' requires server 2.10.0"],
    [{ first_seq: 100 }, "stream 'first_seq' requires server 2.10.0"],
    [
      { subject_transform: { src: 'a.>', dest: 'b.>' } },
      "stream 'subject_transform' requires server 2.10.0",
    ],
    [{ allow_msg_ttl: true }, "stream 'allow_msg_ttl' requires server 2.11.0"],
    [
      { sources: [{ name: 'X', subject_transforms: [{ src: 'a.>', dest: 'b.>' }] }] },
      "stream sources 'subject_transforms' requires server 2.10.0",
    ],
  ])('a stream with %j is refused before anything is sent', async (fields, message) => {
    const name = uniqueStream();
    const { error, requests } = await refused(() =>
      clients.jsm.streams.add({ name, subjects: [`${name}.>`], ...fields }),
    );
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error).toMatchObject({ message });
    expect(requests).toBe(0);
  });

  it('an update is checked for the fields it changes only', async () => {
    const name = await memoryStream(clients.jsm);
    await expect(
      clients.jsm.streams.update(name, { metadata: { team: 'a' } }),
    ).rejects.toMatchObject({ message: "stream 'metadata' requires server 2.10.0" });
    const updated = await clients.jsm.streams.update(name, { description: 'd' });
    expect(updated.config.description).toBe('d');
  });

  it.each([
    [{ filter_subjects: ['a', 'b'] }, "consumer 'filter_subjects' requires server 2.10.0"],
    [{ metadata: { team: 'a' } }, "consumer 'metadata' requires server 2.10.0"],
    [
      { priority_groups: ['g'], priority_policy: 'overflow' as const },
      "consumer 'priority_groups' requires server 2.11.0",
    ],
    [
      { pause_until: new Date(Date.now() + 60_000).toISOString() },
      "consumer 'pause_until' requires server 2.11.0",
    ],
  ])('a consumer with %j is refused before anything is sent', async (fields, message) => {
    const stream = await memoryStream(clients.jsm);
    const { error, requests } = await refused(() =>
      clients.jsm.consumers.add(stream, {
        durable_name: 'C',
        ack_policy: AckPolicy.Explicit,
        ...fields,
      }),
    );
    expect(error).toMatchObject({ message });
    expect(requests).toBe(0);
  });

  it('pause and resume are refused: a 2.9/2.10 server never answers CONSUMER.PAUSE', async () => {
    const stream = await memoryStream(clients.jsm);
    await clients.jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
    const until = new Date(Date.now() + 60_000);
    const { error, requests } = await refused(() =>
      clients.jsm.consumers.pause(stream, 'C', until),
    );
    expect(error).toMatchObject({ message: 'consumer pause requires server 2.11.0' });
    expect(requests).toBe(0);
    await expect(clients.jsm.consumers.resume(stream, 'C')).rejects.toMatchObject({
      message: 'consumer pause requires server 2.11.0',
    });
  });
});

describe.each(ourServers)('consumer pause and resume against $name, presented as 2.11', (kind) => {
  const { clients } = useJetStreamClients(kind);

  it('pause holds deliveries until resume; info shows the pause', async () => {
    presentAs(clients.nc, '2.11.0');
    const stream = await memoryStream(clients.jsm);
    await clients.jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
    await clients.js.publish(`${stream}.a`, 'one');
    const until = new Date(Date.now() + 3_600_000);
    const paused = await clients.jsm.consumers.pause(stream, 'C', until);
    expect(paused).toMatchObject({ paused: true });
    expect(new Date(paused.pause_until).getTime()).toBe(until.getTime());
    expect(paused.pause_remaining).toBeGreaterThan(3_500_000_000_000);
    expect(await clients.jsm.consumers.info(stream, 'C')).toMatchObject({ paused: true });
    const consumer = await clients.js.consumers.get(stream, 'C');
    expect(await all(await consumer.fetch({ max_messages: 1, expires: 700 }))).toEqual([]);

    const resumed = await clients.jsm.consumers.resume(stream, 'C');
    expect(resumed.paused).toBe(false);
    const [m] = await all(await consumer.fetch({ max_messages: 1, expires: 2000 }));
    expect(m?.string()).toBe('one');
  });

  it('a pause until a time already past is no pause', async () => {
    presentAs(clients.nc, '2.11.0');
    const stream = await memoryStream(clients.jsm);
    await clients.jsm.consumers.add(stream, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
    const past = await clients.jsm.consumers.pause(stream, 'C', new Date(Date.now() - 60_000));
    expect(past.paused).toBe(false);
  });

  it('pause needs a time', async () => {
    presentAs(clients.nc, '2.11.0');
    const stream = await memoryStream(clients.jsm);
    await expect(clients.jsm.consumers.pause(stream, 'C')).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });

  it('a consumer created with pause_until starts paused', async () => {
    presentAs(clients.nc, '2.11.0');
    const stream = await memoryStream(clients.jsm);
    const info = await clients.jsm.consumers.add(stream, {
      durable_name: 'P',
      ack_policy: AckPolicy.Explicit,
      pause_until: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(info.paused).toBe(true);
  });
});
