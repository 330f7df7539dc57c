import { describe, expect, it } from 'vitest';
import {
  consumerNameProblem,
  consumerNameSchema,
  isValidBucketName,
  isValidConsumerName,
  isValidKey,
  isValidObjectName,
  isValidSearchKey,
  isValidStreamName,
  streamNameProblem,
  streamNameSchema,
} from '../src/index.js';

describe('stream and consumer names (nats-server rules)', () => {
  it('accepts ordinary names, unicode and the full 255 bytes', () => {
    for (const name of ['ORDERS', 'a-b_c', 'KV_config', '$G', 'ünï', 'x'.repeat(255)]) {
      expect(isValidStreamName(name), name).toBe(true);
      expect(isValidConsumerName(name), name).toBe(true);
    }
  });

  it('rejects empty names, wildcards, dots, whitespace and path separators', () => {
    for (const name of [
      '',
      'a.b',
      'a*',
      'a>',
      'a b',
      'a\tb',
      'a\nb',
      'a\rb',
      'a\fb',
      'a/b',
      'a\\b',
    ]) {
      expect(isValidStreamName(name), JSON.stringify(name)).toBe(false);
      expect(isValidConsumerName(name), JSON.stringify(name)).toBe(false);
    }
  });

  it('counts the 255 limit in UTF-8 bytes like Go', () => {
    expect(isValidStreamName('x'.repeat(256))).toBe(false);
    expect(isValidStreamName('é'.repeat(127))).toBe(true); // 254 bytes
    expect(isValidStreamName('é'.repeat(128))).toBe(false); // 256 bytes
    expect(streamNameProblem('é'.repeat(128))).toMatch(/too long/);
  });

  it('says which rule broke', () => {
    expect(streamNameProblem('a.b')).toBe('stream name can not contain "."');
    expect(consumerNameProblem('')).toBe('consumer name is required');
    const result = streamNameSchema.safeParse('a>b');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/can not contain/);
    expect(consumerNameSchema.safeParse('x'.repeat(300)).error?.issues[0]?.message).toMatch(
      /too long/,
    );
  });
});

describe('KV and object store names (client conventions)', () => {
  it('buckets are ^[a-zA-Z0-9_-]+$', () => {
    for (const ok of ['config', 'A_b-9']) expect(isValidBucketName(ok)).toBe(true);
    for (const bad of ['', 'a.b', 'a b', 'a*', 'ü'])
      expect(isValidBucketName(bad), bad).toBe(false);
  });

  it('keys allow -/_=. and alphanumerics, no leading/trailing dot, no empty token', () => {
    for (const ok of ['a', 'app.name', 'a/b=c-d_e', 'x.y.z']) expect(isValidKey(ok), ok).toBe(true);
    for (const bad of ['', '.a', 'a.', 'a..b', 'a*', 'a>', 'a b', 'ä'])
      expect(isValidKey(bad), bad).toBe(false);
  });

  it('search keys additionally allow * tokens and a trailing >', () => {
    for (const ok of ['>', 'a.*', 'a.>', '*.b']) expect(isValidSearchKey(ok), ok).toBe(true);
    for (const bad of ['', 'a.>.b', '.a', 'a..b']) expect(isValidSearchKey(bad), bad).toBe(false);
  });

  it('object names are any non-empty text', () => {
    expect(isValidObjectName('photos/cat 1.jpg')).toBe(true);
    expect(isValidObjectName('')).toBe(false);
  });
});
