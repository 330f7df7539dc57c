import { describe, expect, it } from 'vitest';
import {
  apiPrefix,
  apiSubject,
  apiSubjectPatterns,
  formatAckSubject,
  jsEventSubject,
  kvKeySubject,
  kvStreamName,
  objChunkSubject,
  objMetaSubject,
  parseAckSubject,
  parseApiSubject,
  parseKvSubject,
  parseObjectSubject,
} from '../src/index.js';

describe('API subjects', () => {
  it('builds subjects under the default prefix, a domain or an imported prefix', () => {
    expect(apiSubject('streamInfo', { stream: 'ORDERS' })).toBe('$JS.API.STREAM.INFO.ORDERS');
    expect(apiSubject('accountInfo', {})).toBe('$JS.API.INFO');
    expect(apiSubject('consumerNext', { stream: 'S', consumer: 'C' }, { domain: 'hub' })).toBe(
      '$JS.hub.API.CONSUMER.MSG.NEXT.S.C',
    );
    expect(apiSubject('streamNames', {}, { apiPrefix: 'JS.acc.API.' })).toBe(
      'JS.acc.API.STREAM.NAMES',
    );
    expect(
      apiSubject('consumerCreateFiltered', { stream: 'S', consumer: 'C', filter: 'orders.*.eu' }),
    ).toBe('$JS.API.CONSUMER.CREATE.S.C.orders.*.eu');
    expect(apiPrefix({ domain: 'hub', apiPrefix: 'X.API' })).toBe('X.API');
  });

  it('refuses to build a subject with a missing parameter', () => {
    expect(() => apiSubject('streamInfo', { stream: '' })).toThrow(/stream/);
  });

  it('parses every pattern back to its operation and parameters', () => {
    for (const [operation, pattern] of Object.entries(apiSubjectPatterns)) {
      const subject = `$JS.API.${pattern
        .replace('{filter...}', 'a.b.>')
        .replace('{subject...}', '$KV.b.k')
        .replace(/\{(\w+)\}/g, (_, n: string) => `${n.toUpperCase()}1`)}`;
      expect(parseApiSubject(subject)?.operation, subject).toBe(operation);
    }
  });

  it('tells the three consumer create forms and the two direct get forms apart', () => {
    expect(parseApiSubject('$JS.API.CONSUMER.CREATE.S')).toMatchObject({
      operation: 'consumerCreateEphemeral',
      params: { stream: 'S' },
    });
    expect(parseApiSubject('$JS.API.CONSUMER.CREATE.S.C')?.operation).toBe('consumerCreate');
    expect(parseApiSubject('$JS.API.CONSUMER.CREATE.S.C.orders.>')).toMatchObject({
      operation: 'consumerCreateFiltered',
      params: { stream: 'S', consumer: 'C', filter: 'orders.>' },
    });
    expect(parseApiSubject('$JS.API.DIRECT.GET.KV_b.$KV.b.k')).toMatchObject({
      operation: 'directGetLastBySubject',
      params: { stream: 'KV_b', subject: '$KV.b.k' },
    });
  });

  it('recognises domains and extra prefixes', () => {
    expect(parseApiSubject('$JS.hub.API.STREAM.INFO.S')).toEqual({
      operation: 'streamInfo',
      params: { stream: 'S' },
      domain: 'hub',
      prefix: '$JS.hub.API',
    });
    expect(parseApiSubject('JS.acc.API.INFO', ['JS.acc.API'])?.operation).toBe('accountInfo');
  });

  it('rejects what the server would not route', () => {
    expect(parseApiSubject('$JS.API.NOPE')).toBeUndefined();
    expect(parseApiSubject('$JS.API.STREAM.CREATE.a.b')).toBeUndefined(); // name with a dot
    expect(parseApiSubject('$JS.API.STREAM.INFO')).toBeUndefined();
    expect(parseApiSubject('$JS.API.STREAM..INFO')).toBeUndefined();
    expect(parseApiSubject('$JS.API.CONSUMER.DURABLE.CREATE.S.D.x')).toBeUndefined();
    expect(parseApiSubject('orders.a')).toBeUndefined();
  });
});

describe('$JS.ACK subjects', () => {
  it('parses the v1 layout (9 tokens) as nats-server 2.9.10 sends it', () => {
    const info = parseAckSubject('$JS.ACK.EV.P1.1.2.3.1795933744363034702.4');
    expect(info).toEqual({
      stream: 'EV',
      consumer: 'P1',
      delivered: 1,
      streamSequence: 2,
      consumerSequence: 3,
      timestampNanos: 1795933744363034702n,
      pending: 4,
    });
    expect(formatAckSubject(info!)).toBe('$JS.ACK.EV.P1.1.2.3.1795933744363034702.4');
  });

  it('parses and formats the v2 layout with domain, account hash and extra tokens', () => {
    const subject = '$JS.ACK.hub.AbCd1234.S.C.2.10.7.1795933744363034702.0.xyz';
    const info = parseAckSubject(subject);
    expect(info).toMatchObject({
      domain: 'hub',
      accountHash: 'AbCd1234',
      stream: 'S',
      extra: ['xyz'],
    });
    expect(formatAckSubject(info!)).toBe(subject);
    const noDomain = parseAckSubject('$JS.ACK._.AbCd1234.S.C.1.1.1.1.0');
    expect(noDomain?.domain).toBeUndefined();
    expect(formatAckSubject(noDomain!, 'v2')).toBe('$JS.ACK._.AbCd1234.S.C.1.1.1.1.0');
    expect(formatAckSubject(noDomain!, 'v1')).toBe('$JS.ACK.S.C.1.1.1.1.0');
  });

  it('rejects malformed ack subjects', () => {
    for (const bad of [
      '$JS.ACK.S.C.1.2.3.4', // 8 tokens
      '$JS.ACK.S.C.1.2.3.4.5.6', // 10 tokens
      '$JS.ACK.S.C.x.2.3.4.5',
      '$JS.ACK.S.C.-1.2.3.4.5',
      '$JS.NAK.S.C.1.2.3.4.5',
      '$JS.ACK.S..1.2.3.4.5',
    ]) {
      expect(parseAckSubject(bad), bad).toBeUndefined();
    }
  });
});

describe('KV and object store subjects', () => {
  it('maps keys to subjects, directly or through a domain', () => {
    expect(kvStreamName('config')).toBe('KV_config');
    expect(kvKeySubject('config', 'app.name')).toBe('$KV.config.app.name');
    expect(kvKeySubject('config', 'k', { domain: 'hub' })).toBe('$JS.hub.API.$KV.config.k');
    expect(parseKvSubject('$KV.config.app.name')).toEqual({ bucket: 'config', key: 'app.name' });
    expect(parseKvSubject('$KV.config')).toBeUndefined();
    expect(parseKvSubject('$KV.bad!.k')).toBeUndefined();
  });

  it('maps objects to chunk and meta subjects with URL-safe base64 names', () => {
    expect(objChunkSubject('files', 'NUID1')).toBe('$O.files.C.NUID1');
    // "a?b>" is YT9iPg== in standard base64 and stays padded but URL-safe.
    expect(objMetaSubject('files', 'a?b>')).toBe('$O.files.M.YT9iPg==');
    expect(objMetaSubject('files', '\u00ff\u00fe')).toBe('$O.files.M.w7_Dvg==');
    expect(parseObjectSubject('$O.files.M.w7_Dvg==')).toEqual({
      bucket: 'files',
      kind: 'meta',
      name: '\u00ff\u00fe',
    });
    expect(parseObjectSubject('$O.files.C.NUID1')).toEqual({
      bucket: 'files',
      kind: 'chunk',
      nuid: 'NUID1',
    });
    expect(parseObjectSubject('$O.files.X.y')).toBeUndefined();
  });

  it('builds advisory subjects', () => {
    expect(jsEventSubject('consumerCreated', { stream: 'S', consumer: 'C' })).toBe(
      '$JS.EVENT.ADVISORY.CONSUMER.CREATED.S.C',
    );
    expect(jsEventSubject('consumerAck', { stream: 'S', consumer: 'C' })).toBe(
      '$JS.EVENT.METRIC.CONSUMER.ACK.S.C',
    );
    expect(() => jsEventSubject('streamCreated')).toThrow(/stream/);
  });
});
