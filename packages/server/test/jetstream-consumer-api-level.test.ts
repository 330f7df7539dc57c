/**
 * The API level in consumer metadata (nats-server 2.11 on): the stored config says the level its
 * features need (`_nats.req.level`), a create, info or reset answer also the server's version and
 * level (`_nats.ver`, `_nats.level`), a list the stored config only. Follows
 * TestJetStreamSetStaticConsumerMetadata, ...SetDynamicConsumerInfoMetadata (nats-server v2.12.1
 * server/jetstream_versioning_test.go:218, 290) and TestJetStreamUpgradeConsumerVersioning
 * (v2.12.1 server/jetstream_test.go:19731): a create repeating a config with those keys is the
 * same consumer. nats-server 2.9.10 writes no such keys: the answers are written out.
 */
import { describe, expect, it } from 'vitest';
import { apiLevelOf } from '../src/api-level.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
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

const shown = (required: string, user: Record<string, string> = {}) => ({
  ...user,
  '_nats.req.level': required,
  '_nats.ver': NATS_COMPATIBLE_VERSION,
  '_nats.level': String(apiLevelOf(NATS_COMPATIBLE_VERSION)),
});

const metadataOf = (answer: Answer) => configOf(answer).metadata;

describe('consumer API level metadata as nats-server 2.11', () => {
  it('stores the level needed, shows the server level in create and info answers, not in lists', async () => {
    await js.stream({ name: 'S', subjects: ['s.>'] });
    const created = await js.consumer('S', { durable_name: 'PLAIN', metadata: { team: 'a' } });
    expect(metadataOf(created)).toEqual(shown('0', { team: 'a' }));
    expect(metadataOf(await js.info('S', 'PLAIN'))).toEqual(shown('0', { team: 'a' }));
    const list = await wire.request('$JS.API.CONSUMER.LIST.S');
    const [listed] = list.consumers as Answer[];
    expect(metadataOf(listed!)).toEqual({ team: 'a', '_nats.req.level': '0' });
  });

  it('needs level 1 for a priority policy or a pause, set by PAUSE too', async () => {
    await js.stream({ name: 'S', subjects: ['s.>'] });
    const pinned = await js.consumer('S', {
      durable_name: 'PINNED',
      priority_policy: 'pinned_client',
      priority_groups: ['A'],
    });
    expect(metadataOf(pinned)).toEqual(shown('1'));
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const paused = await js.consumer('S', { durable_name: 'PAUSED', pause_until: later });
    expect(metadataOf(paused)).toEqual(shown('1'));

    await js.consumer('S', { durable_name: 'LATER' });
    const pause = await wire.request('$JS.API.CONSUMER.PAUSE.S.LATER', { pause_until: later });
    expect(pause.paused).toBe(true);
    expect(metadataOf(await js.info('S', 'LATER'))).toEqual(shown('1'));
  });

  it('TestJetStreamUpgradeConsumerVersioning: a create repeating the answered config is the same consumer', async () => {
    await js.stream({ name: 'S', subjects: ['s.>'] });
    const created = await js.consumer('S', { durable_name: 'C' });
    const again = await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.S.C', {
      stream_name: 'S',
      config: configOf(created),
      action: 'create',
    });
    expect(errorOf(again)).toBeUndefined();
    expect(again.created).toBe(created.created);
    // The server's keys in a request are its own to write: a version and level sent are replaced.
    const forged = await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.S.C', {
      stream_name: 'S',
      config: { ...configOf(created), metadata: { '_nats.ver': '9.9.9', '_nats.level': '99' } },
    });
    expect(errorOf(forged)).toBeUndefined();
    expect(metadataOf(forged)).toEqual(shown('0'));
  });
});
