/**
 * The API level a request may require (nats-server 2.12's `Nats-Required-Api-Level` header): a
 * level above the server's, or one that is not a number, is refused before the request is read:
 * the JSON API with JSRequiredApiLevelErr, a direct get or a pull request with a `412 Required
 * Api Level` status. Follows TestJetStreamApiErrorOnRequiredApiLevel, ...DirectGet and
 * ...PullConsumerNextMsg (nats-server v2.12.1 server/jetstream_versioning_test.go:641, 665,
 * 693). nats-server 2.9.10 ignores the header, so the answers are written out. And the level
 * the server reports in its API statistics (from 2.11 on).
 */
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLevelOf } from '../src/api-level.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import { type ConsumerTarget, startOurs } from './jetstream-consumer-wire.js';

const MAX_INT = '9223372036854775807';
const requiredLevelError = {
  code: 412,
  err_code: 10185,
  description: 'JetStream minimum api level required',
};

describe('Nats-Required-Api-Level as nats-server 2.12', () => {
  let target: ConsumerTarget;
  let nc: NatsConnection;

  beforeAll(async () => {
    target = await startOurs();
    nc = await connect({ servers: `127.0.0.1:${target.port}` });
    const create = { name: 'TEST', subjects: ['foo'], allow_direct: true };
    await nc.request('$JS.API.STREAM.CREATE.TEST', JSON.stringify(create));
    await nc.request(
      '$JS.API.CONSUMER.CREATE.TEST.CONSUMER',
      JSON.stringify({ stream_name: 'TEST', config: { durable_name: 'CONSUMER' } }),
    );
    await nc.request('foo', 'x');
  });
  afterAll(async () => {
    await nc?.close();
    await target?.stop();
  });

  const asking = (level: string) => {
    const h = headers();
    h.set('Nats-Required-Api-Level', level);
    return { headers: h, timeout: 2_000 };
  };

  it('refuses every JSON API request that asks a higher level, whatever its body', async () => {
    for (const [subject, body] of [
      ['$JS.API.INFO', ''],
      ['$JS.API.STREAM.NAMES', ''],
      ['$JS.API.STREAM.CREATE.OTHER', '{"name":"OTHER"}'],
      ['$JS.API.STREAM.INFO.TEST', 'not json'],
      ['$JS.API.STREAM.MSG.GET.TEST', '{"seq":1}'],
      ['$JS.API.CONSUMER.INFO.TEST.CONSUMER', ''],
      ['$JS.API.CONSUMER.DELETE.TEST.CONSUMER', ''],
    ] as const) {
      const answer = (await nc.request(subject, body, asking(MAX_INT))).json<{ error: unknown }>();
      expect(answer.error, subject).toEqual(requiredLevelError);
    }
    // Not a number: refused too. The server's own level or below: answered.
    const bad = await nc.request('$JS.API.INFO', '', asking('two'));
    expect(bad.json<{ error: unknown }>().error).toEqual(requiredLevelError);
    for (const level of ['0', '1', '+1', '-3']) {
      const info = (await nc.request('$JS.API.INFO', '', asking(level))).json<object>();
      expect(info, level).not.toHaveProperty('error');
    }
    // Nothing was created or deleted.
    const names = (await nc.request('$JS.API.STREAM.NAMES', '')).json<{ streams: string[] }>();
    expect(names.streams).toEqual(['TEST']);
    const info = await nc.request('$JS.API.CONSUMER.INFO.TEST.CONSUMER', '');
    expect(info.json<object>()).not.toHaveProperty('error');
  });

  it('reports its API level first in the account info API statistics (2.11 JetStreamAPIStats)', async () => {
    // nats-server v2.11.0 server/jetstream.go:94-99: level, total, errors.
    const info = (await nc.request('$JS.API.INFO', '')).json<{ api: object }>();
    expect(Object.keys(info.api)).toEqual(['level', 'total', 'errors']);
    expect(info.api).toMatchObject({ level: apiLevelOf(NATS_COMPATIBLE_VERSION) });
  });

  it('answers a direct get in both forms with 412 Required Api Level', async () => {
    for (const subject of ['$JS.API.DIRECT.GET.TEST', '$JS.API.DIRECT.GET.TEST.foo']) {
      const body = subject.endsWith('foo') ? '' : '{"seq":1}';
      const reply = await nc.request(subject, body, asking(MAX_INT));
      expect(reply.headers?.code, subject).toBe(412);
      expect(reply.headers?.description, subject).toBe('Required Api Level');
    }
  });

  it('answers a pull request with 412 Required Api Level', async () => {
    const reply = await nc.request(
      '$JS.API.CONSUMER.MSG.NEXT.TEST.CONSUMER',
      '{"batch":1}',
      asking(MAX_INT),
    );
    expect(reply.headers?.code).toBe(412);
    expect(reply.headers?.description).toBe('Required Api Level');
  });
});
