/**
 * Priority groups of pull consumers, nats-server 2.11: `priority_groups` with the `overflow`
 * and `pinned_client` policies, the pull request's group / min_pending / min_ack_pending / id,
 * the Nats-Pin-Id header and 423 statuses, $JS.API.CONSUMER.UNPIN, the info's priority_groups
 * and the pinned / unpinned advisories, on our server over raw requests. Expected behaviour is
 * nats-server's at v2.11.0, cited by file:line in server/ at that tag.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type Answer,
  type ConsumerRequests,
  configOf,
  errorOf,
  useOurServer,
} from './jetstream-consumer-requests.js';
import { type ConsumerWire, sleep, type WireMessage } from './jetstream-consumer-wire.js';

let wire: ConsumerWire;
let js: ConsumerRequests;
useOurServer((connected, requests) => {
  wire = connected;
  js = requests;
});

/** Sends a pull request with `body` on a fresh inbox; returns the inbox. */
function pullRequest(stream: string, name: string, body: Answer): string {
  const inbox = wire.inbox();
  wire.pub(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`, body, inbox);
  return inbox;
}

/** What arrived on `inbox` within `ms`: `subject:data` for messages, the status line else. */
async function seen(inbox: string, ms: number): Promise<string[]> {
  await sleep(ms);
  return wire.on(inbox).map(describe1);
}

function describe1(m: WireMessage): string {
  const status = m.headers?.split('\r\n')[0] ?? '';
  return status.length > 'NATS/1.0'.length ? status : `${m.subject}:${m.data}`;
}

function pinOf(m: WireMessage): string | undefined {
  return /\r\nNats-Pin-Id: ([^\r]+)\r\n/.exec(m.headers ?? '')?.[1];
}

const seconds = (n: number) => n * 1_000_000_000;

describe('priority group config (nats-server 2.11)', () => {
  it('a policy needs valid group names; pinned_client gets a default priority_timeout', async () => {
    await js.stream({ name: 'C', subjects: ['c.>'] });
    const refusal = async (config: Answer) =>
      errorOf(await js.consumer('C', { durable_name: 'X', ...config }));
    // checkConsumerCfg (consumer.go:819-831).
    expect(await refusal({ priority_policy: 'overflow' })).toEqual({
      code: 400,
      err_code: 10159,
      description: 'Setting PriorityPolicy requires at least one PriorityGroup to be set',
    });
    expect(await refusal({ priority_policy: 'overflow', priority_groups: [''] })).toEqual({
      code: 400,
      err_code: 10161,
      description: 'Group name cannot be an empty string',
    });
    for (const bad of ['a b', 'seventeen-chars-x']) {
      expect(
        await refusal({ priority_policy: 'pinned_client', priority_groups: [bad] }),
      ).toMatchObject({ err_code: 10162 });
    }
    // setConsumerConfigDefaults (consumer.go:590-593): a 2 minute pin.
    const pinned = await js.consumer('C', {
      durable_name: 'PIN',
      priority_policy: 'pinned_client',
      priority_groups: ['A/b_c=-1'],
    });
    expect(configOf(pinned)).toMatchObject({
      priority_policy: 'pinned_client',
      priority_groups: ['A/b_c=-1'],
      priority_timeout: seconds(120),
    });
    expect(pinned.priority_groups).toEqual([
      { group: 'A/b_c=-1', pinned_ts: '0001-01-01T00:00:00Z' },
    ]);
    // 2.12's fourth policy, prioritized, is in jetstream-consumer-prioritized.test.ts.
    // Policy none is Go's zero value: not written (omitempty); no groups, no priority_groups.
    const none = await js.consumer('C', { durable_name: 'NONE', priority_policy: 'none' });
    expect(configOf(none).priority_policy).toBeUndefined();
    expect(none.priority_groups).toBeUndefined();
  });
});

describe('overflow (nats-server 2.11)', () => {
  it('passes over requests while fewer messages are pending or fewer acks outstanding than they ask', async () => {
    await js.stream({ name: 'O', subjects: ['o.>'] }, ['o.1', 'o.2', 'o.3', 'o.4', 'o.5']);
    await js.consumer('O', {
      durable_name: 'OV',
      ack_policy: 'explicit',
      priority_policy: 'overflow',
      priority_groups: ['jobs'],
    });
    const waitFor = { batch: 10, expires: 400_000_000, group: 'jobs' };
    // nextWaiting (consumer.go:3669-3680): min_pending > pending counted before this message.
    expect(await seen(pullRequest('O', 'OV', { ...waitFor, min_pending: 6 }), 600)).toEqual([
      'NATS/1.0 408 Request Timeout',
    ]);
    expect(await seen(pullRequest('O', 'OV', { ...waitFor, min_pending: 4 }), 600)).toEqual([
      'o.1:m1',
      'o.2:m2',
      'NATS/1.0 408 Request Timeout',
    ]);
    // Two out unacked: a request wanting 3 outstanding waits, one wanting 2 is served.
    expect(await seen(pullRequest('O', 'OV', { ...waitFor, min_ack_pending: 3 }), 600)).toEqual([
      'NATS/1.0 408 Request Timeout',
    ]);
    expect(
      await seen(pullRequest('O', 'OV', { ...waitFor, batch: 1, min_ack_pending: 2 }), 300),
    ).toEqual(['o.3:m3']);
    // A request without the thresholds takes what is there.
    expect(await seen(pullRequest('O', 'OV', { batch: 2, group: 'jobs' }), 300)).toEqual([
      'o.4:m4',
      'o.5:m5',
    ]);
  });

  it('answers requests without a group, with an unknown one, or with the other policy fields', async () => {
    await js.stream({ name: 'B', subjects: ['b.>'] }, ['b.1']);
    await js.consumer('B', {
      durable_name: 'OV',
      priority_policy: 'overflow',
      priority_groups: ['g'],
    });
    await js.consumer('B', { durable_name: 'PLAIN' });
    // processNextMsgRequest (consumer.go:3818-3845).
    expect(await seen(pullRequest('B', 'OV', { batch: 1, min_pending: 1 }), 200)).toEqual([
      'NATS/1.0 400 Bad Request - Priority Group missing',
    ]);
    expect(await seen(pullRequest('B', 'OV', { batch: 1, group: 'h' }), 200)).toEqual([
      'NATS/1.0 400 Bad Request - Invalid Priority Group',
    ]);
    // The other policy's fields draw a 400, and the request is served all the same.
    expect(await seen(pullRequest('B', 'OV', { batch: 1, group: 'g', id: 'x' }), 300)).toEqual([
      'NATS/1.0 400 Bad Request - Not a Pinned Client Priority consumer',
      'b.1:m1',
    ]);
    expect(await seen(pullRequest('B', 'PLAIN', { batch: 1, min_pending: 1 }), 300)).toEqual([
      'NATS/1.0 400 Bad Request - Not a Overflow Priority consumer',
      'b.1:m1',
    ]);
  });
});

describe('pinned_client (nats-server 2.11)', () => {
  const pinned = '$JS.EVENT.ADVISORY.CONSUMER.PINNED.P.PIN';
  const unpinned = '$JS.EVENT.ADVISORY.CONSUMER.UNPINNED.P.PIN';
  const unpin = (body: Answer | string, consumer = 'PIN') =>
    wire.request(`$JS.API.CONSUMER.UNPIN.P.${consumer}`, body);

  beforeEach(async () => {
    wire.sub(pinned);
    wire.sub(unpinned);
    await js.stream({ name: 'P', subjects: ['p.>'] }, ['p.1', 'p.2', 'p.3', 'p.4']);
    await js.consumer('P', {
      durable_name: 'PIN',
      ack_policy: 'explicit',
      priority_policy: 'pinned_client',
      priority_groups: ['G'],
      priority_timeout: seconds(1),
    });
  });

  it('pins the first request, names the pin on every message, holds off the others', async () => {
    const first = pullRequest('P', 'PIN', { batch: 1, group: 'G' });
    const [m1] = await wire.received(first, 1);
    const pin = pinOf(m1!);
    expect(m1!.data).toBe('m1');
    expect(pin).toMatch(/^[A-Za-z0-9]{22}$/);
    const [advisory] = await wire.received(pinned, 1);
    expect(JSON.parse(advisory!.data)).toMatchObject({
      type: 'io.nats.jetstream.advisory.v1.consumer_group_pinned',
      // The advisories name the account (consumer.go:1638 and :1657 at v2.11.0).
      account: '$G',
      stream: 'P',
      consumer: 'PIN',
      group: 'G',
      pinned_id: pin,
    });
    const info = await js.info('P', 'PIN');
    expect(info.priority_groups).toMatchObject([{ group: 'G', pinned_client_id: pin }]);
    expect(Date.parse((info.priority_groups as Answer[])[0]!.pinned_ts as string)).toBeGreaterThan(
      Date.now() - 5_000,
    );
    // Without the pin id a request waits (consumer.go:3647-3656); with another it is refused.
    const other = pullRequest('P', 'PIN', { batch: 1, group: 'G', expires: 300_000_000 });
    const wrong = pullRequest('P', 'PIN', { batch: 1, group: 'G', id: 'not-the-pin' });
    expect(await seen(wrong, 200)).toEqual(['NATS/1.0 423 Nats-Pin-Id mismatch']);
    expect(await seen(other, 300)).toEqual(['NATS/1.0 408 Request Timeout']);
    // With the pin id: served, the header again.
    const again = pullRequest('P', 'PIN', { batch: 2, group: 'G', id: pin });
    const got = await wire.received(again, 2);
    expect(got.map((m) => [m.data, pinOf(m)])).toEqual([
      ['m2', pin],
      ['m3', pin],
    ]);
  });

  it('UNPIN ends the pin: the next request without an id gets a new one, the old id a 423', async () => {
    const [m1] = await wire.received(pullRequest('P', 'PIN', { batch: 1, group: 'G' }), 1);
    const oldPin = pinOf(m1!);
    // jetstream_api.go:3472-3570: an empty response; the unpinned advisory says "admin".
    expect(await unpin({ group: 'G' })).toEqual({
      type: 'io.nats.jetstream.api.v1.consumer_unpin_response',
    });
    const [advisory] = await wire.received(unpinned, 1);
    expect(JSON.parse(advisory!.data)).toMatchObject({
      type: 'io.nats.jetstream.advisory.v1.consumer_group_unpinned',
      account: '$G',
      stream: 'P',
      consumer: 'PIN',
      group: 'G',
      reason: 'admin',
    });
    // No pin now: a request claiming the old one is dropped with Nats-Wrong-Pin-Id
    // (consumer.go:3628-3645), one without an id is pinned anew.
    expect(await seen(pullRequest('P', 'PIN', { batch: 1, group: 'G', id: oldPin }), 200)).toEqual([
      'NATS/1.0 423 Nats-Wrong-Pin-Id',
    ]);
    const [m2] = await wire.received(pullRequest('P', 'PIN', { batch: 1, group: 'G' }), 1);
    expect(m2!.data).toBe('m2');
    expect(pinOf(m2!)).not.toBe(oldPin);
  });

  it('the pin ends after priority_timeout without a request', async () => {
    const [m1] = await wire.received(pullRequest('P', 'PIN', { batch: 1, group: 'G' }), 1);
    expect(pinOf(m1!)).toBeDefined();
    // setPinnedTimer (consumer.go:3569-3580).
    const [advisory] = await wire.received(unpinned, 1, 2_500);
    expect(JSON.parse(advisory!.data)).toMatchObject({ group: 'G', reason: 'timeout' });
    const info = await js.info('P', 'PIN');
    expect((info.priority_groups as Answer[])[0]!.pinned_client_id).toBeUndefined();
  });

  it('UNPIN refuses a missing or invalid group, a group the consumer lacks, an unknown consumer', async () => {
    const error = async (body: Answer | string, consumer?: string) =>
      errorOf(await unpin(body, consumer));
    expect(await error({})).toEqual({
      code: 400,
      err_code: 10025,
      description: 'invalid JSON: consumer group not specified',
    });
    expect(await error({ group: 'a b' })).toMatchObject({ err_code: 10162 });
    expect(await error({ group: 'H' })).toEqual({
      code: 400,
      err_code: 10160,
      description: 'Provided priority group does not exist for this consumer',
    });
    expect(await error({ group: 'G' }, 'NOPE')).toMatchObject({ err_code: 10014 });
  });
});
