/**
 * Consumer config values nats-server 2.12 refuses or normalises: a negative ack_wait (10183) or
 * backoff step (10184); a negative limit set to its "none" (-1 for max_deliver and
 * max_ack_pending, the default or 0 for the others), or refused in a `pedantic` create. Follows
 * the consumer half of TestJetStreamInvalidConfigValues (nats-server v2.12.1
 * server/jetstream_test.go:21457, setConsumerConfigDefaults and checkConsumerCfg in
 * consumer.go:567-623, 714-722). nats-server 2.9.10 checks none of this: answers written out.
 */
import { describe, expect, it } from 'vitest';
import {
  type Answer,
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

const create = (config: Answer, pedantic = false) =>
  wire.request(`$JS.API.CONSUMER.CREATE.S.${config.durable_name}`, {
    stream_name: 'S',
    config,
    ...(pedantic ? { pedantic: true } : {}),
  });

describe('consumer config values as nats-server 2.12 (TestJetStreamInvalidConfigValues)', () => {
  it('refuses a negative ack_wait or backoff step', async () => {
    await js.stream({ name: 'S', subjects: ['s'] });
    expect(
      errorOf(await create({ durable_name: 'A', ack_policy: 'explicit', ack_wait: -1e9 })),
    ).toEqual({
      code: 400,
      err_code: 10183,
      description: 'consumer ack wait needs to be positive',
    });
    expect(
      errorOf(await create({ durable_name: 'B', ack_policy: 'explicit', backoff: [-1e9] })),
    ).toEqual({ code: 400, err_code: 10184, description: 'consumer backoff needs to be positive' });
  });

  it('sets negative limits to their none, or refuses them in a pedantic create', async () => {
    await js.stream({ name: 'S', subjects: ['s'] });
    const cases: [string, number | undefined, string][] = [
      ['max_deliver', -1, 'max_deliver must be set to -1'],
      ['max_ack_pending', -1, 'max_ack_pending must be set to -1'],
      ['max_waiting', 512, 'max_waiting must not be negative'],
      ['max_batch', undefined, 'max_batch must not be negative'],
      ['max_expires', undefined, 'max_expires must not be negative'],
      ['max_bytes', undefined, 'max_bytes must not be negative'],
      ['idle_heartbeat', undefined, 'idle_heartbeat must not be negative'],
      ['inactive_threshold', undefined, 'inactive_threshold must not be negative'],
    ];
    for (const [i, [field, normalised, pedantic]] of cases.entries()) {
      const config = { durable_name: `N${i}`, ack_policy: 'explicit', [field]: -10 };
      const created = await create(config);
      expect(errorOf(created), field).toBeUndefined();
      expect(configOf(created)[field], field).toBe(normalised);
      expect(errorOf(await create({ ...config, durable_name: `P${i}` }, true)), field).toEqual({
        code: 400,
        err_code: 10157,
        description: `pedantic mode: ${pedantic}`,
      });
    }
  });
});
