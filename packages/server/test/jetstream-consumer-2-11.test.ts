/**
 * Consumer validation where nats-server 2.11 is more lenient than 2.9.10, on our server (which
 * advertises 2.11): a filter outside the stream's subjects, and a backoff list as long as
 * max_deliver or with max_deliver unlimited. Expected behaviour is nats-server's at v2.11.0,
 * cited by file:line in server/ at that tag; 2.9.10 refuses each of these.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConsumerRequests,
  configOf,
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

const SECOND = 1_000_000_000;

describe('consumer filters outside the stream (nats-server 2.11)', () => {
  it('accepts a filter the stream does not cover, with nothing pending on it', async () => {
    await js.stream({ name: 'ORIGIN', subjects: ['origin.*'] }, ['origin.a', 'origin.b']);
    // checkConsumerCfg has no subset check at v2.11.0 (consumer.go:706-735): 10093 is defined
    // but never returned; 2.9.10 refused this (consumer.go:468 at v2.9.10).
    const outside = await js.consumer('ORIGIN', { durable_name: 'F', filter_subject: 'other.a' });
    expect(errorOf(outside)).toBeUndefined();
    expect(configOf(outside).filter_subject).toBe('other.a');
    expect(outside.num_pending).toBe(0);
    const many = await js.consumer('ORIGIN', {
      durable_name: 'M',
      filter_subjects: ['origin.a', 'elsewhere.>'],
    });
    expect(errorOf(many)).toBeUndefined();
    expect(many.num_pending).toBe(1);
    expect(await js.pull('ORIGIN', 'M', 10)).toEqual(['origin.a:m1']);
  });

  it('still refuses a single filter that is not a valid subject (consumer.go:712)', async () => {
    await js.stream({ name: 'V', subjects: ['v.>'] });
    const bad = await js.consumer('V', { durable_name: 'X', filter_subject: 'v..b' });
    expect(errorOf(bad)).toEqual({ code: 500, err_code: 10052, description: 'invalid subject' });
  });
});

describe('backoff against max_deliver (nats-server 2.11)', () => {
  const steps = [SECOND, 2 * SECOND, 3 * SECOND];

  it('accepts as many steps as deliveries, and any number with max_deliver unlimited', async () => {
    await js.stream({ name: 'B', subjects: ['b.>'] });
    // consumer.go:627: refused only when max_deliver != -1 and len(backoff) > max_deliver.
    const equal = await js.consumer('B', {
      durable_name: 'EQ',
      ack_policy: 'explicit',
      backoff: steps,
      max_deliver: 3,
    });
    expect(errorOf(equal)).toBeUndefined();
    expect(configOf(equal)).toMatchObject({ max_deliver: 3, ack_wait: SECOND });
    const unlimited = await js.consumer('B', {
      durable_name: 'UN',
      ack_policy: 'explicit',
      backoff: steps,
    });
    expect(errorOf(unlimited)).toBeUndefined();
    expect(configOf(unlimited)).toMatchObject({ max_deliver: -1, backoff: steps });
  });

  it('refuses more steps than deliveries, on create and on update (consumer.go:2127)', async () => {
    await js.stream({ name: 'B', subjects: ['b.>'] });
    const refused = { code: 400, err_code: 10116 };
    const tooMany = await js.consumer('B', {
      durable_name: 'TM',
      ack_policy: 'explicit',
      backoff: steps,
      max_deliver: 2,
    });
    expect(errorOf(tooMany)).toMatchObject(refused);
    const base = { durable_name: 'U', ack_policy: 'explicit', max_deliver: 3 };
    expect(errorOf(await js.consumer('B', base))).toBeUndefined();
    const grown = await wire.request('$JS.API.CONSUMER.CREATE.B.U', {
      stream_name: 'B',
      config: { ...base, backoff: [...steps, 4 * SECOND] },
      action: 'update',
    });
    expect(errorOf(grown)).toMatchObject(refused);
    const fitting = await wire.request('$JS.API.CONSUMER.CREATE.B.U', {
      stream_name: 'B',
      config: { ...base, backoff: steps },
      action: 'update',
    });
    expect(errorOf(fitting)).toBeUndefined();
  });
});
