import { describe, expect, it } from 'vitest';
import {
  base64UrlDecode,
  base64UrlEncode,
  kvStreamConfig,
  objectDigest,
  objectStoreStreamConfig,
  type StreamConfig,
  streamConfigWithDefaults,
} from '../src/index.js';
import { officialAudits } from './support/fixtures.js';

const audits = officialAudits();
const officialCreate = (stream: string) =>
  JSON.parse(
    audits.find((a) => a.subject === `$JS.API.STREAM.CREATE.${stream}`)!.request!,
  ) as StreamConfig;

describe('bucket stream configs', () => {
  it('a KV bucket is the stream nats.js creates (nats.go additionally sets deny_delete)', () => {
    const ours = streamConfigWithDefaults(
      kvStreamConfig({ bucket: 'official', history: 3, description: 'by nats.js' }),
    );
    const official = streamConfigWithDefaults(officialCreate('KV_official'));
    expect(ours).toEqual({ ...official, deny_delete: true });
  });

  it('an object store bucket is the stream nats.js creates', () => {
    const ours = streamConfigWithDefaults(
      objectStoreStreamConfig({ bucket: 'media', description: 'by nats.js' }),
    );
    expect(ours).toEqual(streamConfigWithDefaults(officialCreate('OBJ_media')));
  });

  it('KV options map onto stream limits', () => {
    const config = kvStreamConfig({
      bucket: 'b',
      ttl: 60_000_000_000,
      maxValueSize: 1024,
      compression: true,
      limitMarkerTtl: 5_000_000_000,
    });
    expect(config).toMatchObject({
      max_age: 60_000_000_000,
      duplicate_window: 60_000_000_000,
      max_msg_size: 1024,
      compression: 's2',
      allow_msg_ttl: true,
      subject_delete_marker_ttl: 5_000_000_000,
    });
  });
});

describe('object store encodings', () => {
  it('base64url keeps padding and round-trips bytes', () => {
    const bytes = Uint8Array.from([0xfb, 0xff, 0xfe, 0x00]);
    expect(base64UrlEncode(bytes)).toBe('-__-AA==');
    expect(base64UrlDecode('-__-AA==')).toEqual(bytes);
    expect(base64UrlDecode('-__-AA')).toEqual(bytes);
    expect(base64UrlDecode('not base64!')).toBeUndefined();
  });

  it('digests are SHA-256= plus base64url', async () => {
    const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(0)));
    expect(objectDigest(hash)).toBe('SHA-256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});
