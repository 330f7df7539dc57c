import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  accountInfoResponseSchema,
  consumerConfigSchema,
  consumerInfoSchema,
  msgGetRequestSchema,
  pubAckSchema,
  pullRequestSchema,
  streamConfigSchema,
  streamInfoSchema,
} from '../src/index.js';

/**
 * Field coverage against the JSON Schemas nats-io/jsm.go publishes. The fixture holds the
 * field paths derived from those schemas; every path must exist in our zod schema. Fields we
 * deliberately lack would be listed (with the reason) in `justifiedMissing` and the README.
 */
const jsm = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'jsm-fields.json'), 'utf8'),
) as Record<string, string[]>;

const accountInfoSuccess = (accountInfoResponseSchema as z.ZodUnion).options[1] as z.ZodType;

const ours: Record<string, z.ZodType> = {
  stream_configuration: streamConfigSchema,
  consumer_configuration: consumerConfigSchema,
  stream_info: streamInfoSchema,
  consumer_info: consumerInfoSchema,
  account_info: accountInfoSuccess,
  pub_ack: pubAckSchema,
  consumer_getnext_request: pullRequestSchema,
  stream_msg_get_request: msgGetRequestSchema,
};

const justifiedMissing: Record<string, string[]> = {};

/** Every field path of a zod schema; arrays and maps are transparent (`*` for map values). */
function fieldPaths(schema: z.ZodType, prefix = ''): string[] {
  const def = (schema as z.ZodType & { def: { type: string } }).def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return fieldPaths((schema as z.ZodOptional).unwrap() as z.ZodType, prefix);
    case 'array':
      return fieldPaths((schema as z.ZodArray<z.ZodType>).element, prefix);
    case 'record':
      return fieldPaths((schema as z.ZodRecord).valueType as z.ZodType, `${prefix}*.`);
    case 'union':
      return (schema as z.ZodUnion).options.flatMap((o) => fieldPaths(o as z.ZodType, prefix));
    case 'object':
      return Object.entries((schema as z.ZodObject).shape).flatMap(([key, value]) => [
        `${prefix}${key}`,
        ...fieldPaths(value as z.ZodType, `${prefix}${key}.`),
      ]);
    default:
      return [];
  }
}

describe('coverage of the jsm.go JSON Schemas', () => {
  it.each(Object.keys(ours))('%s: no field of jsm.go is missing', (name) => {
    const have = new Set(fieldPaths(ours[name]!));
    const theirs = jsm[name] ?? [];
    expect(theirs.length).toBeGreaterThan(0);
    const missing = theirs.filter((path) => !have.has(path));
    expect(missing).toEqual(justifiedMissing[name] ?? []);
  });
});
