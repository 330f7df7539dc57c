/**
 * A stream update may change max_consumers from nats-server 2.14 on (ce880c8, v2.14.0
 * configUpdateCheck; TestJetStreamUpdateStream, server/jetstream_test.go at v2.14.2, no longer
 * expects the refusal); before, it is refused. Checked on the config rules by version, and on our
 * server at the version it advertises.
 */
import { describe, expect, it } from 'vitest';
import { isAtLeast } from '../src/api-level.js';
import { checkStreamConfig, checkStreamUpdate } from '../src/jetstream/stream/stream-config.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import { ConsumerWire, startOurs } from './jetstream-consumer-wire.js';

const refusal = {
  code: 500,
  err_code: 10052,
  description: 'stream configuration update can not change MaxConsumers',
};

describe('max_consumers in a stream update', () => {
  const none = () => undefined;
  const old = checkStreamConfig({ name: 'S', subjects: ['s'], max_consumers: 5 }, none);

  it('is refused before 2.14 and taken from 2.14 on', () => {
    const update = { name: 'S', subjects: ['s'], max_consumers: 2 };
    expect(() => checkStreamUpdate(old, update, none, '2.12.1')).toThrow(refusal.description);
    expect(checkStreamUpdate(old, update, none, '2.14.0').max_consumers).toBe(2);
  });

  it('follows the advertised version on our server', async () => {
    const target = await startOurs();
    const wire = await ConsumerWire.connect(target.port);
    try {
      await wire.request('$JS.API.STREAM.CREATE.S', {
        name: 'S',
        subjects: ['s'],
        max_consumers: 5,
      });
      const answer = await wire.request('$JS.API.STREAM.UPDATE.S', {
        name: 'S',
        subjects: ['s'],
        max_consumers: 2,
      });
      if (isAtLeast(NATS_COMPATIBLE_VERSION, 2, 14)) {
        expect((answer.config as { max_consumers: number }).max_consumers).toBe(2);
      } else {
        expect(answer.error).toEqual(refusal);
      }
    } finally {
      wire.close();
      await target.stop();
    }
  });
});
