/**
 * A rollup past a subject's limit under discard_new_per_subject (nats-server 2.14, b7a69dc:
 * memstore.go / filestore.go storeRawMsg let a message with `Nats-Rollup` through, its rollup
 * then restores the limit). Follows TestJetStreamClusterRollupWithDiscardNewPerSubject
 * (nats-server v2.14.2 server/jetstream_cluster_3_test.go, its R1 case): on the store with the
 * limits of a 2.14 stream, and on our server at the version it advertises (refused before 2.14).
 */
import { describe, expect, it } from 'vitest';
import { isAtLeast } from '../src/api-level.js';
import { openMemoryStore } from '../src/jetstream/store/memory-store.js';
import { checkStreamConfig, storeLimitsOf } from '../src/jetstream/stream/stream-config.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import { ConsumerWire, startOurs } from './jetstream-consumer-wire.js';
import { RawClient } from './raw-client.js';

const config = checkStreamConfig(
  {
    name: 'TEST',
    subjects: ['kv.>'],
    discard: 'new',
    discard_new_per_subject: true,
    max_msgs_per_subject: 1,
    allow_rollup_hdrs: true,
  },
  () => undefined,
);
const rollup = Buffer.from('NATS/1.0\r\nNats-Rollup: sub\r\n\r\n');
const bytes = (text: string) => Buffer.from(text);

describe('a rollup at the discard-new-per-subject limit', () => {
  it('passes the store of a 2.14 stream, and only a rollup does', () => {
    const store = openMemoryStore({ name: 'TEST', limits: storeLimitsOf(config, '2.14.0') });
    store.store('kv.A', undefined, bytes('value-A'));
    store.store('kv.B', undefined, bytes('value-B'));
    expect(() => store.store('kv.A', undefined, bytes('again'))).toThrow(
      'maximum messages per subject exceeded',
    );
    expect(store.store('kv.A', rollup, bytes('rolled-up-A')).seq).toBe(3);
  });

  it('is refused by the store of a stream before 2.14', () => {
    const store = openMemoryStore({ name: 'TEST', limits: storeLimitsOf(config, '2.12.1') });
    store.store('kv.A', undefined, bytes('value-A'));
    expect(() => store.store('kv.A', rollup, bytes('rolled-up-A'))).toThrow(
      'maximum messages per subject exceeded',
    );
  });

  it('follows the advertised version on our server', async () => {
    const target = await startOurs();
    const wire = await ConsumerWire.connect(target.port);
    const raw = await RawClient.connectAndGreet(target.port);
    try {
      await wire.request('$JS.API.STREAM.CREATE.TEST', config);
      await wire.request('kv.A', 'value-A');
      await wire.request('kv.B', 'value-B');
      const inbox = wire.inbox();
      await wire.flush();
      await raw.send('CONNECT {"verbose":false,"headers":true}\r\n');
      const data = 'rolled-up-A';
      await raw.send(
        `HPUB kv.A ${inbox} ${rollup.length} ${rollup.length + data.length}\r\n${rollup}${data}\r\n`,
      );
      const [ack] = await wire.received(inbox, 1);
      const answer = JSON.parse(ack!.data);
      if (isAtLeast(NATS_COMPATIBLE_VERSION, 2, 14)) {
        expect(answer).toEqual({ stream: 'TEST', seq: 3 });
        const state = (await wire.request('$JS.API.STREAM.INFO.TEST')).state;
        expect(state).toMatchObject({ messages: 2, first_seq: 2, last_seq: 3 });
      } else {
        expect(answer.error).toMatchObject({
          err_code: 10077,
          description: 'maximum messages per subject exceeded',
        });
      }
    } finally {
      raw.close();
      wire.close();
      await target.stop();
    }
  });
});
