/**
 * Stream config values nats-server 2.12 refuses: a negative max_age, and in a `pedantic` create a
 * limit below -1 (which is otherwise taken as -1). Follows the stream half of
 * TestJetStreamInvalidConfigValues (nats-server v2.12.1 server/jetstream_test.go:21457;
 * checkStreamCfg, stream.go:1549-1581). nats-server 2.9.10 checks none of this: answers written out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerTarget, ConsumerWire, startOurs } from './jetstream-consumer-wire.js';

describe('stream config values as nats-server 2.12 (TestJetStreamInvalidConfigValues)', () => {
  let target: ConsumerTarget;
  let wire: ConsumerWire;
  beforeAll(async () => {
    target = await startOurs();
    wire = await ConsumerWire.connect(target.port);
  });
  afterAll(async () => {
    wire?.close();
    await target?.stop();
  });

  const create = (name: string, config: object) =>
    wire.request(`$JS.API.STREAM.CREATE.${name}`, { name, subjects: [name], ...config });

  it('refuses a negative max_age', async () => {
    expect((await create('AGE', { max_age: -1_000_000_000 })).error).toEqual({
      code: 500,
      err_code: 10052,
      description: 'max age can not be negative',
    });
  });

  it('takes a limit below -1 as -1, and refuses it in a pedantic create', async () => {
    for (const field of [
      'max_msgs',
      'max_msgs_per_subject',
      'max_bytes',
      'max_msg_size',
      'max_consumers',
    ]) {
      const name = field.toUpperCase();
      const created = await create(name, { [field]: -10 });
      expect((created.config as Record<string, unknown>)[field], field).toBe(-1);
      const pedantic = await create(`P${name}`, { [field]: -10, pedantic: true });
      expect(pedantic.error, field).toEqual({
        code: 400,
        err_code: 10157,
        description: `pedantic mode: ${field} must be set to -1`,
      });
    }
  });
});
