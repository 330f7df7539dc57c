/**
 * The `prioritized` priority policy of pull consumers (nats-server 2.12): waiting requests are
 * served by their `priority` (0 first), in turn among equals, and a request with a more urgent
 * priority takes over from one still wanting messages. Follows TestJetStreamConsumerPrioritized
 * (nats-server v2.12.1 server/jetstream_consumer_test.go:10125); the config refusals follow
 * checkConsumerCfg (v2.12.1 server/consumer.go:917-941). nats-server 2.9.10 has no priority
 * groups, so the answers are written out.
 */
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  type ConsumerRequests,
  errorOf,
  useOurServer,
} from './jetstream-consumer-requests.js';
import type { ConsumerWire } from './jetstream-consumer-wire.js';

let wire: ConsumerWire;
let js: ConsumerRequests;
useOurServer((connected, requests) => {
  wire = connected;
  js = requests;
});

/** A pull request of group A with `priority` on a fresh inbox; returns the inbox. */
function pull(priority: number, batch: number): string {
  const inbox = wire.inbox();
  const body = { batch, expires: 10_000_000_000, group: 'A', priority };
  wire.pub('$JS.API.CONSUMER.MSG.NEXT.TEST.CONSUMER', body, inbox);
  return inbox;
}

/** How many messages (not statuses) each inbox has received once the server caught up. */
async function counts(...inboxes: string[]): Promise<number[]> {
  await wire.flush();
  return inboxes.map((inbox) => wire.on(inbox).filter((m) => m.data !== '').length);
}

async function publishOne(): Promise<void> {
  await js.publish(['foo']);
  await wire.flush();
}

async function prioritizedConsumer(): Promise<void> {
  await js.stream({ name: 'TEST', subjects: ['foo'] });
  const created = await js.consumer('TEST', {
    durable_name: 'CONSUMER',
    ack_policy: 'none',
    filter_subject: 'foo',
    priority_groups: ['A'],
    priority_policy: 'prioritized',
  });
  expect(errorOf(created)).toBeUndefined();
  expect((created.config as Answer).priority_policy).toBe('prioritized');
}

describe('prioritized pull consumers (TestJetStreamConsumerPrioritized)', () => {
  it('invalid priority number: 400 outside 0-9', async () => {
    await prioritizedConsumer();
    for (const priority of [10, -5]) {
      const inbox = pull(priority, 1);
      const [status] = await wire.received(inbox, 1);
      expect(status!.headers).toBe(
        'NATS/1.0 400 Bad Request - Priority must be between 0 and 9\r\n\r\n',
      );
    }
  });

  it('priority ordering: the lowest number first, each until its batch is done', async () => {
    await prioritizedConsumer();
    const p3 = pull(3, 1);
    const p1 = pull(1, 1);
    const p2 = pull(2, 2);
    await wire.flush();
    await publishOne();
    expect(await counts(p1, p2, p3)).toEqual([1, 0, 0]);
    await publishOne();
    expect(await counts(p1, p2, p3)).toEqual([1, 1, 0]);
    await publishOne();
    expect(await counts(p1, p2, p3)).toEqual([1, 2, 0]);
    await publishOne();
    expect(await counts(p1, p2, p3)).toEqual([1, 2, 1]);
  });

  it('dynamic priority interruption: a more urgent request takes over, the others resume', async () => {
    await prioritizedConsumer();
    const p3 = pull(3, 3);
    await wire.flush();
    await publishOne();
    expect(await counts(p3)).toEqual([1]);
    const p2 = pull(2, 2);
    await wire.flush();
    await publishOne();
    expect(await counts(p2, p3)).toEqual([1, 1]);
    const p1 = pull(1, 1);
    await wire.flush();
    await js.publish(['foo', 'foo', 'foo']);
    expect(await counts(p1, p2, p3)).toEqual([1, 2, 2]);
  });

  it('takes turns among requests of the same priority', async () => {
    await prioritizedConsumer();
    const first = pull(4, 2);
    const second = pull(4, 2);
    await wire.flush();
    await publishOne();
    expect(await counts(first, second)).toEqual([1, 0]);
    await publishOne();
    expect(await counts(first, second)).toEqual([1, 1]);
  });
});

describe('priority group config (nats-server 2.12)', () => {
  it('refuses groups or a priority_timeout without a policy, and a policy on a push consumer', async () => {
    await js.stream({ name: 'C', subjects: ['c'] });
    const refusal = async (config: Answer) =>
      errorOf(await js.consumer('C', { durable_name: 'X', ...config }));
    expect(await refusal({ priority_groups: ['A'] })).toEqual({
      code: 400,
      err_code: 10196,
      description: 'consumer can not have priority groups when policy is none',
    });
    expect(await refusal({ priority_timeout: 1_000_000_000 })).toEqual({
      code: 400,
      err_code: 10197,
      description: 'PinnedTTL cannot be set when PriorityPolicy is none',
    });
    expect(
      await refusal({
        deliver_subject: 'push',
        priority_policy: 'prioritized',
        priority_groups: ['A'],
      }),
    ).toEqual({
      code: 400,
      err_code: 10178,
      description: 'priority groups can not be used with push consumers',
    });
  });
});
