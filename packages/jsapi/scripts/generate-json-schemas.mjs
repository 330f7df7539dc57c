// Writes a JSON Schema (draft 2020-12) for every API request and response, every advisory and
// the standalone types into dist/schemas, from the built zod schemas. Runs after tsc in `build`.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import * as jsapi from '../dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'schemas');

const schemas = {};
for (const [name, operation] of Object.entries(jsapi.apiOperations)) {
  if (operation.request) schemas[`api/${name}.request`] = [operation.request, 'input'];
  if (operation.response) schemas[`api/${name}.response`] = [operation.response, 'output'];
}
for (const [name, event] of Object.entries(jsapi.jsEvents)) {
  schemas[`events/${name}`] = [event.schema, 'output'];
}
Object.assign(schemas, {
  'types/stream_config': [jsapi.streamConfigSchema, 'input'],
  'types/stream_info': [jsapi.streamInfoSchema, 'output'],
  'types/stream_state': [jsapi.streamStateSchema, 'output'],
  'types/consumer_config': [jsapi.consumerConfigSchema, 'input'],
  'types/consumer_info': [jsapi.consumerInfoSchema, 'output'],
  'types/pub_ack': [jsapi.pubAckSchema, 'output'],
  'types/api_error': [jsapi.apiErrorSchema, 'output'],
  'types/pull_request': [jsapi.pullRequestSchema, 'input'],
  'types/stored_message': [jsapi.storedMessageSchema, 'output'],
  'types/object_info': [jsapi.objectInfoSchema, 'output'],
  'types/object_meta': [jsapi.objectMetaSchema, 'input'],
  'types/object_link': [jsapi.objectLinkSchema, 'input'],
});

rmSync(root, { recursive: true, force: true });
const index = {};
for (const [name, [schema, io]] of Object.entries(schemas)) {
  const file = join(root, `${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  json.$id = `https://unpkg.com/@slipstream/jsapi/dist/schemas/${name}.json`;
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  index[name] = `${name}.json`;
}
writeFileSync(join(root, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
console.log(`wrote ${Object.keys(schemas).length} JSON Schemas to dist/schemas`);
