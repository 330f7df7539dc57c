import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiOperations, jsEvents } from '../src/index.js';

// The build writes these files to dist/schemas (scripts/generate-json-schemas.mjs); this checks
// that every schema converts and that the result says what a reader in another language needs.
describe('JSON Schema generation', () => {
  it.each(Object.entries(apiOperations))('%s converts', (_, operation) => {
    for (const schema of [operation.request, operation.response]) {
      if (schema) expect(() => z.toJSONSchema(schema, { unrepresentable: 'any' })).not.toThrow();
    }
  });

  it.each(Object.entries(jsEvents))('event %s converts', (_, event) => {
    expect(z.toJSONSchema(event.schema).properties).toHaveProperty('timestamp');
  });

  it('carries enums, required fields and the response type constant', () => {
    const json = JSON.stringify(
      z.toJSONSchema(apiOperations.streamCreate.response, { unrepresentable: 'any' }),
    );
    expect(json).toContain('"const":"io.nats.jetstream.api.v1.stream_create_response"');
    expect(json).toContain('"enum":["limits","interest","workqueue"]');
    const request = z.toJSONSchema(apiOperations.consumerCreate.request, { io: 'input' }) as {
      required: string[];
    };
    expect(request.required).toEqual(['stream_name', 'config']);
  });
});
