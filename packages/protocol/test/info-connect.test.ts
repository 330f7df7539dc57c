import { describe, expect, it } from 'vitest';
import { connectDefaults, parseConnectInfo } from '../src/connect.js';
import { parseServerInfo } from '../src/info.js';
import { WireJsonError } from '../src/wire-json.js';

// Captured from nats-server 2.9.10 (-js, loopback): the text between "INFO " and CRLF,
// including the trailing space the server writes.
const INFO_2_9_10 =
  '{"server_id":"NA3C3VT5T446ATNMQCUXZAKOR7NA6DORKNGNKGY3MQG7277B6YBA7CTX","server_name":"NA3C3VT5T446ATNMQCUXZAKOR7NA6DORKNGNKGY3MQG7277B6YBA7CTX","version":"2.9.10","proto":1,"go":"go1.19.8","host":"127.0.0.1","port":24777,"headers":true,"max_payload":1048576,"jetstream":true,"client_id":4,"client_ip":"127.0.0.1"} ';

function failure<T>(result: { ok: true; value: T } | { ok: false; error: WireJsonError }) {
  if (result.ok) throw new Error('expected a failure');
  return result.error;
}

describe('parseServerInfo', () => {
  it('parses a real nats-server 2.9.10 INFO', () => {
    const result = parseServerInfo(INFO_2_9_10);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const info = result.value;
    expect(info.server_id).toMatch(/^N[A-Z2-7]{55}$/);
    expect(info.version).toBe('2.9.10');
    expect(info.proto).toBe(1);
    expect(info.headers).toBe(true);
    expect(info.max_payload).toBe(1048576);
    expect(info.jetstream).toBe(true);
    expect(info.client_id).toBe(4);
    expect(info.client_ip).toBe('127.0.0.1');
    expect(info.auth_required).toBeUndefined();
  });

  it('accepts the optional cluster, auth and lame-duck fields', () => {
    const info = {
      ...JSON.parse(INFO_2_9_10),
      auth_required: true,
      nonce: 'abc',
      cluster: 'c1',
      connect_urls: ['10.0.0.1:4222'],
      ldm: true,
      import: { allow: ['>'], deny: null },
      some_future_field: { x: 1 },
    };
    const result = parseServerInfo(JSON.stringify(info));
    expect(result.ok && result.value.connect_urls).toEqual(['10.0.0.1:4222']);
    expect(result.ok && result.value.ldm).toBe(true);
    // unknown fields are kept, not rejected
    expect(
      result.ok && (result.value as unknown as Record<string, unknown>).some_future_field,
    ).toEqual({ x: 1 });
  });

  it('treats null as absent', () => {
    const result = parseServerInfo(JSON.stringify({ ...JSON.parse(INFO_2_9_10), nonce: null }));
    expect(result.ok).toBe(true);
    expect(result.ok && 'nonce' in result.value).toBe(false);
  });

  it.each([
    ['{"server_id":', 'INVALID_JSON', undefined],
    ['', 'INVALID_JSON', undefined],
    ['[1,2]', 'NOT_AN_OBJECT', undefined],
    ['"text"', 'NOT_AN_OBJECT', undefined],
    ['null', 'NOT_AN_OBJECT', undefined],
  ] as const)('refuses %j with %s', (json, code, field) => {
    const error = failure(parseServerInfo(json));
    expect(error).toBeInstanceOf(WireJsonError);
    expect(error.code).toBe(code);
    expect(error.field).toBe(field);
  });

  it('accepts an INFO without server_name and go, as servers before 2.2 and non-Go servers send', () => {
    const info = JSON.parse(INFO_2_9_10);
    delete info.server_name;
    delete info.go;
    const result = parseServerInfo(JSON.stringify(info));
    expect(result.ok && result.value.max_payload).toBe(info.max_payload);
  });

  it.each(['server_id', 'version', 'proto', 'max_payload', 'port'])('requires %s', (field) => {
    const info = JSON.parse(INFO_2_9_10);
    delete info[field];
    const error = failure(parseServerInfo(JSON.stringify(info)));
    expect(error.code).toBe('MISSING_FIELD');
    expect(error.field).toBe(field);
  });

  it.each([
    ['max_payload', '1048576'],
    ['proto', 1.5],
    ['headers', 'true'],
    ['connect_urls', 'a,b'],
    ['connect_urls', [1]],
    ['import', ['>']],
    ['import', { allow: '>' }],
  ])('rejects %s = %j', (field, value) => {
    const error = failure(
      parseServerInfo(JSON.stringify({ ...JSON.parse(INFO_2_9_10), [field]: value })),
    );
    expect(error.code).toBe('INVALID_FIELD');
    expect(error.field).toBe(field);
  });
});

describe('parseConnectInfo', () => {
  it('parses what nats.js sends', () => {
    const json =
      '{"protocol":1,"version":"3.0.0","lang":"nats.js","echo":true,"pedantic":false,"verbose":false,"headers":true,"no_responders":true,"user":"a","pass":"b"}';
    const result = parseConnectInfo(json);
    expect(result).toEqual({ ok: true, value: JSON.parse(json) });
  });

  it('accepts an empty object and keeps omitted fields omitted', () => {
    const result = parseConnectInfo('{}');
    expect(result).toEqual({ ok: true, value: {} });
  });

  it('keeps unknown fields', () => {
    const result = parseConnectInfo('{"verbose":false,"whatever":42}');
    expect(result.ok && (result.value as Record<string, unknown>).whatever).toBe(42);
  });

  it.each([
    ['CONNECT {bad', 'INVALID_JSON', undefined],
    ['{bad', 'INVALID_JSON', undefined],
    ['', 'INVALID_JSON', undefined],
    ['42', 'NOT_AN_OBJECT', undefined],
    ['{"verbose":"yes"}', 'INVALID_FIELD', 'verbose'],
    ['{"protocol":"1"}', 'INVALID_FIELD', 'protocol'],
    ['{"protocol":1.5}', 'INVALID_FIELD', 'protocol'],
    ['{"user":7}', 'INVALID_FIELD', 'user'],
    ['{"import":true}', 'INVALID_FIELD', 'import'],
  ] as const)('refuses %j with %s', (json, code, field) => {
    const error = failure(parseConnectInfo(json));
    expect(error.code).toBe(code);
    expect(error.field).toBe(field);
  });

  it('does not throw on hostile input', () => {
    for (const json of ['{"__proto__":{"verbose":"x"}}', '{"a":'.repeat(1000), '\u0000']) {
      expect(() => parseConnectInfo(json)).not.toThrow();
    }
  });
});

describe('connectDefaults', () => {
  it('turns verbose, pedantic and echo on when omitted, like nats-server', () => {
    expect(connectDefaults({})).toEqual({
      verbose: true,
      pedantic: true,
      echo: true,
      tls_required: false,
      headers: false,
      no_responders: false,
      protocol: 0,
      name: '',
      lang: '',
      version: '',
    });
  });

  it('keeps what the client sent', () => {
    const resolved = connectDefaults({
      verbose: false,
      pedantic: false,
      echo: false,
      headers: true,
      protocol: 1,
      name: 'n',
      user: 'u',
    });
    expect(resolved.verbose).toBe(false);
    expect(resolved.pedantic).toBe(false);
    expect(resolved.echo).toBe(false);
    expect(resolved.headers).toBe(true);
    expect(resolved.protocol).toBe(1);
    expect(resolved.name).toBe('n');
    expect(resolved.user).toBe('u');
  });

  it('works on a parsed CONNECT', () => {
    const parsed = parseConnectInfo('{"verbose":false,"echo":null}');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const resolved = connectDefaults(parsed.value);
    expect(resolved.verbose).toBe(false);
    expect(resolved.pedantic).toBe(true);
    expect(resolved.echo).toBe(true);
  });

  it('does not modify its argument', () => {
    const info = { verbose: false };
    connectDefaults(info);
    expect(info).toEqual({ verbose: false });
  });
});
