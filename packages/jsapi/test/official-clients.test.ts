import { describe, expect, it } from 'vitest';
import {
  decodeApiRequest,
  decodeApiResponse,
  objectInfoSchema,
  objMetaSubject,
  parseApiSubject,
  parseObjectSubject,
} from '../src/index.js';
import { officialAudits, readFixture } from './support/fixtures.js';

// Recorded by tooling/jsapi-fixtures from the official nats.js v3 KV and object store clients.
const audits = officialAudits();
const metas = readFixture<{ subject: string; headers?: string; data: string }[]>(
  'official',
  'object-meta.json',
);

describe('what the official clients send', () => {
  it('was recorded', () => {
    expect(audits.length).toBeGreaterThan(10);
    expect(metas.length).toBeGreaterThan(3);
  });

  it.each(audits.map((a, i) => [`${i} ${a.subject}`, a] as const))(
    '%s: request and response decode with our schemas',
    (_, audit) => {
      const operation = parseApiSubject(audit.subject)?.operation;
      expect(operation).toBeDefined();
      const request = decodeApiRequest(operation!, audit.request ?? '');
      expect(request.ok, JSON.stringify(request)).toBe(true);
      const response = decodeApiResponse(operation!, audit.response);
      expect(response.ok).toBe(true);
      if (response.ok)
        expect(JSON.parse(JSON.stringify(response.value))).toEqual(JSON.parse(audit.response));
    },
  );

  it.each(metas.map((m, i) => [`${i} ${m.subject}`, m] as const))(
    '%s: object metadata parses, and its subject encodes its name',
    (_, meta) => {
      const json = JSON.parse(meta.data);
      const info = objectInfoSchema.parse(json);
      expect(JSON.parse(JSON.stringify(info))).toEqual(json);
      expect(parseObjectSubject(meta.subject)).toEqual({
        bucket: info.bucket,
        kind: 'meta',
        name: info.name,
      });
      expect(objMetaSubject(info.bucket, info.name)).toBe(meta.subject);
    },
  );
});
