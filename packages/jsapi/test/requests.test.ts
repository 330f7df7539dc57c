import { describe, expect, it } from 'vitest';
import {
  consumerConfigWithDefaults,
  decodeApiRequest,
  decodeApiResponse,
  encodeGoJson,
  parsePullRequestBody,
  responseError,
  streamConfigWithDefaults,
} from '../src/index.js';

describe('invalid requests', () => {
  it('name the field and the rule', () => {
    const result = decodeApiRequest(
      'consumerCreate',
      '{"stream_name":"S","config":{"ack_policy":"sometimes","max_deliver":1.5}}',
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      expect.objectContaining({ path: 'config.ack_policy', rule: 'invalid_value' }),
      expect.objectContaining({ path: 'config.max_deliver', rule: 'invalid_type' }),
    ]);
    expect(result.error.toJSON()).toMatchObject({ code: 400, err_code: 10025 });
    expect(result.error.description).toMatch(
      /^invalid JSON: config\.ack_policy: .*; config\.max_deliver: /,
    );
  });

  it('report missing required fields, wrong types and negative sequences', () => {
    const cases: [Parameters<typeof decodeApiRequest>[0], string, string, string][] = [
      ['streamCreate', '{"name":5}', 'name', 'invalid_type'],
      ['streamCreate', '{"name":"S","max_age":"1h"}', 'max_age', 'invalid_type'],
      ['streamCreate', '{"name":"S","storage":"disk"}', 'storage', 'invalid_value'],
      ['streamMsgDelete', '{"seq":-1}', 'seq', 'too_small'],
      ['streamMsgGet', '{"start_time":"yesterday"}', 'start_time', 'invalid_format'],
      ['consumerCreate', '{"config":{}}', 'stream_name', 'invalid_type'],
      ['consumerNext', '{"batch":"ten"}', 'batch', 'invalid_type'],
      ['streamSnapshot', '{"chunk_size":1024}', 'deliver_subject', 'invalid_type'],
    ];
    for (const [operation, body, path, rule] of cases) {
      const result = decodeApiRequest(operation, body);
      expect(result.ok, body).toBe(false);
      if (!result.ok) expect(result.issues[0], body).toMatchObject({ path, rule });
    }
  });

  it('follow the payload rules of nats-server', () => {
    const notEmpty = decodeApiRequest('streamDelete', '{"x":1}');
    expect(!notEmpty.ok && notEmpty.error.errCode).toBe(10038);
    expect(decodeApiRequest('streamDelete', '{}').ok).toBe(true);
    const required = decodeApiRequest('streamMsgGet', '{}');
    expect(!required.ok && required.error.errCode).toBe(10003);
    const createEmpty = decodeApiRequest('streamCreate', '');
    expect(!createEmpty.ok && createEmpty.error.errCode).toBe(10025);
    expect(decodeApiRequest('streamInfo', '')).toEqual({ ok: true, value: undefined });
    expect(decodeApiRequest('accountInfo', 'anything')).toEqual({ ok: true, value: undefined });
    expect(
      decodeApiRequest('streamInfo', new TextEncoder().encode('{"deleted_details":true}')),
    ).toEqual({
      ok: true,
      value: { deleted_details: true },
    });
  });

  it('keep unknown fields for a newer server', () => {
    const result = decodeApiRequest(
      'streamCreate',
      '{"name":"S","future_flag":true,"mirror":{"name":"M","x":1}}',
    );
    expect(result).toEqual({
      ok: true,
      value: { name: 'S', future_flag: true, mirror: { name: 'M', x: 1 } },
    });
  });
});

describe('responses', () => {
  it('an error response decodes and yields an ApiError', () => {
    const raw =
      '{"type":"io.nats.jetstream.api.v1.stream_info_response","error":{"code":404,"err_code":10059,"description":"stream not found"},"total":0,"offset":0,"limit":0}';
    const decoded = decodeApiResponse('streamInfo', raw);
    expect(decoded.ok).toBe(true);
    expect(responseError(decoded.ok && decoded.value)?.errCode).toBe(10059);
  });

  it('a response of the wrong type is refused', () => {
    const decoded = decodeApiResponse(
      'streamDelete',
      '{"type":"io.nats.jetstream.api.v1.stream_purge_response","success":true,"purged":1}',
    );
    expect(decoded.ok).toBe(false);
  });

  it('durations past 2^53 ns decode (a pause until a year away), fractions do not', () => {
    // nats-server writes pause_remaining as a Go int64 of nanoseconds: 4 years is about 1.26e17.
    const paused = (remaining: string) =>
      decodeApiResponse(
        'consumerPause',
        `{"type":"io.nats.jetstream.api.v1.consumer_pause_response","paused":true,"pause_until":"2030-01-01T00:00:00Z","pause_remaining":${remaining}}`,
      );
    const decoded = paused('126230400000000000');
    expect(decoded.ok && decoded.value.pause_remaining).toBe(126230400000000000);
    expect(paused('1.5').ok).toBe(false);
  });

  it('pull and direct get have no JSON response', () => {
    expect(() => decodeApiResponse('consumerNext', '{}')).toThrow(TypeError);
  });
});

describe('pull request bodies', () => {
  it('read as the server reads them', () => {
    expect(parsePullRequestBody('')).toEqual({ batch: 1 });
    expect(parsePullRequestBody(' 10 ')).toEqual({ batch: 10 });
    expect(parsePullRequestBody('{"batch":5,"expires":30000000000,"no_wait":true}')).toEqual({
      batch: 5,
      expires: 30_000_000_000,
      no_wait: true,
    });
    expect(parsePullRequestBody('{"batch":')).toBeUndefined();
    expect(parsePullRequestBody('{"priority":10}')).toBeUndefined();
  });
});

describe('defaults, applied only on request', () => {
  it('streamConfigWithDefaults gives what nats-server 2.9.10 echoed for a minimal config', () => {
    expect(streamConfigWithDefaults({ name: 'ORDERS', subjects: ['orders.*'] })).toEqual({
      name: 'ORDERS',
      subjects: ['orders.*'],
      retention: 'limits',
      max_consumers: -1,
      max_msgs: -1,
      max_bytes: -1,
      max_age: 0,
      max_msgs_per_subject: -1,
      max_msg_size: -1,
      discard: 'old',
      storage: 'file',
      num_replicas: 1,
      duplicate_window: 120_000_000_000,
      allow_direct: false,
      mirror_direct: false,
      sealed: false,
      deny_delete: false,
      deny_purge: false,
      allow_rollup_hdrs: false,
    });
  });

  it('streamConfigWithDefaults: subjects from the name, duplicate window capped by max_age', () => {
    const config = streamConfigWithDefaults({ name: 'NOSUBJ', max_age: 60_000_000_000 });
    expect(config.subjects).toEqual(['NOSUBJ']);
    expect(config.duplicate_window).toBe(60_000_000_000);
    expect(
      streamConfigWithDefaults({ name: 'M', mirror: { name: 'S' } }).duplicate_window,
    ).toBeUndefined();
  });

  it('consumerConfigWithDefaults gives what 2.9.10 echoed for an ephemeral pull consumer', () => {
    expect(consumerConfigWithDefaults({ ack_policy: 'explicit' })).toEqual({
      deliver_policy: 'all',
      ack_policy: 'explicit',
      ack_wait: 30_000_000_000,
      max_deliver: -1,
      replay_policy: 'instant',
      max_waiting: 512,
      max_ack_pending: 1000,
      inactive_threshold: 5_000_000_000,
      num_replicas: 0,
    });
  });

  it('consumerConfigWithDefaults: durables never expire, backoff sets ack_wait, push has no max_waiting', () => {
    const config = consumerConfigWithDefaults({
      durable_name: 'D',
      ack_policy: 'explicit',
      backoff: [1_000_000_000, 2_000_000_000],
      deliver_subject: 'deliver.d',
    });
    expect(config.inactive_threshold).toBeUndefined();
    expect(config.ack_wait).toBe(1_000_000_000);
    expect(config.max_waiting).toBeUndefined();
    expect(consumerConfigWithDefaults({}).max_ack_pending).toBeUndefined();
  });

  it('parsing never applies defaults', () => {
    const decoded = decodeApiRequest('streamCreate', '{"name":"S"}');
    expect(decoded).toEqual({ ok: true, value: { name: 'S' } });
  });
});

describe('Go-style JSON', () => {
  it('escapes <, >, & and the line separators like encoding/json', () => {
    expect(encodeGoJson({ subjects: ['orders.>'], d: 'a&b<c\u2028' })).toBe(
      '{"subjects":["orders.\\u003e"],"d":"a\\u0026b\\u003cc\\u2028"}',
    );
  });
});
