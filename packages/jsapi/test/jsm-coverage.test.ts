import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as jsapi from '../src/index.js';
import { readFixture } from './support/fixtures.js';

/**
 * Field coverage against the JSON Schemas nats-io/jsm.go publishes. The fixture holds the field
 * paths derived from those files (with the commit read) and names our schema for each; every
 * path must exist in our zod schema. Fields we deliberately lack are listed, with the reason,
 * in `justifiedMissing` here and in the README.
 */
type FieldEntry = string | { $ref: string; at?: string };
interface Fixture {
  definitions: Record<string, { read: string; commit: string; fields: FieldEntry[] }>;
  schemas: Record<string, { commit: string; ours: string; fields: FieldEntry[]; note?: string }>;
}
const jsm = readFixture<Fixture>('jsm-fields.json');

const accountInfoSuccess = (jsapi.accountInfoResponseSchema as z.ZodUnion).options[1] as z.ZodType;

/** Our schema for each `ours` name of the fixture. */
const ours: Record<string, z.ZodType> = {
  streamConfig: jsapi.streamConfigSchema,
  consumerConfig: jsapi.consumerConfigSchema,
  streamInfo: jsapi.streamInfoSchema,
  consumerInfo: jsapi.consumerInfoSchema,
  accountInfo: accountInfoSuccess,
  pubAck: jsapi.pubAckSchema,
  pullRequest: jsapi.pullRequestSchema,
  msgGetRequest: jsapi.msgGetRequestSchema,
  consumerCreateRequest: jsapi.consumerCreateRequestSchema,
  consumerCreateResponse: jsapi.consumerCreateResponseSchema,
  consumerListResponse: jsapi.consumerListResponseSchema,
  consumerPauseRequest: jsapi.consumerPauseRequestSchema,
  consumerPauseResponse: jsapi.consumerPauseResponseSchema,
  consumerResetRequest: jsapi.consumerResetRequestSchema,
  consumerResetResponse: jsapi.consumerResetResponseSchema,
  consumerUnpinRequest: jsapi.consumerUnpinRequestSchema,
  consumerUnpinResponse: jsapi.consumerUnpinResponseSchema,
  leaderStepdownRequest: jsapi.leaderStepdownRequestSchema,
  accountPurgeResponse: jsapi.accountPurgeResponseSchema,
  metaRescueRequest: jsapi.metaRescueRequestSchema,
  metaRescueResponse: jsapi.metaRescueResponseSchema,
  serverRemoveRequest: jsapi.serverRemoveRequestSchema,
  metaServerRemoveResponse: jsapi.metaServerRemoveResponseSchema,
  streamMoveRequest: jsapi.streamMoveRequestSchema,
  streamCreateRequest: jsapi.streamCreateRequestSchema,
  streamCreateResponse: jsapi.streamCreateResponseSchema,
  streamUpdateResponse: jsapi.streamUpdateResponseSchema,
  streamInfoResponse: jsapi.streamInfoResponseSchema,
  streamListResponse: jsapi.streamListResponseSchema,
  streamNamesRequest: jsapi.streamNamesRequestSchema,
  streamPeerRemoveRequest: jsapi.streamPeerRemoveRequestSchema,
  streamRemovePeerResponse: jsapi.streamRemovePeerResponseSchema,
  streamMsgDeleteRequest: jsapi.streamMsgDeleteRequestSchema,
  streamMsgGetResponse: jsapi.streamMsgGetResponseSchema,
  streamPurgeRequest: jsapi.streamPurgeRequestSchema,
  streamPurgeResponse: jsapi.streamPurgeResponseSchema,
  streamRestoreRequest: jsapi.streamRestoreRequestSchema,
  streamSnapshotRequest: jsapi.streamSnapshotRequestSchema,
  streamSnapshotResponse: jsapi.streamSnapshotResponseSchema,
  streamTemplateConfig: jsapi.streamTemplateConfigSchema,
  streamTemplateCreateResponse: jsapi.streamTemplateCreateResponseSchema,
  streamTemplateInfoResponse: jsapi.streamTemplateInfoResponseSchema,
  apiAuditAdvisory: jsapi.apiAuditAdvisorySchema,
  apiLimitReachedAdvisory: jsapi.apiLimitReachedAdvisorySchema,
  consumerActionAdvisory: jsapi.consumerActionAdvisorySchema,
  consumerGroupPinnedAdvisory: jsapi.consumerGroupPinnedAdvisorySchema,
  consumerGroupUnpinnedAdvisory: jsapi.consumerGroupUnpinnedAdvisorySchema,
  consumerLeaderElectedAdvisory: jsapi.consumerLeaderElectedAdvisorySchema,
  consumerPauseAdvisory: jsapi.consumerPauseAdvisorySchema,
  consumerQuorumLostAdvisory: jsapi.consumerQuorumLostAdvisorySchema,
  domainLeaderElectedAdvisory: jsapi.domainLeaderElectedAdvisorySchema,
  maxDeliverAdvisory: jsapi.maxDeliverAdvisorySchema,
  nakAdvisory: jsapi.nakAdvisorySchema,
  restoreCompleteAdvisory: jsapi.restoreCompleteAdvisorySchema,
  restoreCreateAdvisory: jsapi.restoreCreateAdvisorySchema,
  serverOutOfSpaceAdvisory: jsapi.serverOutOfSpaceAdvisorySchema,
  serverRemovedAdvisory: jsapi.serverRemovedAdvisorySchema,
  snapshotCompleteAdvisory: jsapi.snapshotCompleteAdvisorySchema,
  snapshotCreateAdvisory: jsapi.snapshotCreateAdvisorySchema,
  streamActionAdvisory: jsapi.streamActionAdvisorySchema,
  streamBatchAbandonedAdvisory: jsapi.streamBatchAbandonedAdvisorySchema,
  streamLeaderElectedAdvisory: jsapi.streamLeaderElectedAdvisorySchema,
  streamQuorumLostAdvisory: jsapi.streamQuorumLostAdvisorySchema,
  terminatedAdvisory: jsapi.terminatedAdvisorySchema,
  consumerAckMetric: jsapi.consumerAckMetricSchema,
};

const clientNonceTypo = ['client.none'];
/** Fields of jsm.go we lack on purpose; the README says why for each. */
const justifiedMissing: Record<string, string[]> = {
  'schemas/jetstream/api/v1/consumer_create_response.json': ['pause_until'],
  'schema_source/jetstream/api/v1/consumer_unpin_response.json': [
    'error.error',
    'error.error.code',
    'error.error.description',
    'error.error.err_code',
  ],
  'schema_source/jetstream/api/v1/meta_stream_move_request.json': ['account', 'stream'],
  'schema_source/jetstream/api/v1/stream_msg_delete_request.json': ['no_marker'],
  'schema_source/jetstream/api/v1/stream_purge_request.json': ['no_marker'],
  'schemas/jetstream/advisory/v1/api_audit.json': clientNonceTypo,
  'schemas/jetstream/advisory/v1/restore_complete.json': clientNonceTypo,
  'schemas/jetstream/advisory/v1/restore_create.json': clientNonceTypo,
  'schemas/jetstream/advisory/v1/snapshot_complete.json': clientNonceTypo,
  'schema_source/jetstream/advisory/v1/snapshot_create.json': [
    'blocks',
    'block_size',
    ...clientNonceTypo,
  ],
};

/** The field paths of a fixture entry, with every `$ref` replaced by the definition's paths. */
function theirPaths(fields: FieldEntry[], seen: string[] = []): string[] {
  return fields.flatMap((entry) => {
    if (typeof entry === 'string') return [entry];
    const definition = jsm.definitions[entry.$ref];
    if (!definition) throw new Error(`no definition ${entry.$ref}`);
    if (seen.includes(entry.$ref)) throw new Error(`$ref cycle through ${entry.$ref}`);
    const prefix = entry.at ? `${entry.at}.` : '';
    return theirPaths(definition.fields, [...seen, entry.$ref]).map((path) => prefix + path);
  });
}

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
  it.each(Object.keys(jsm.schemas))('%s: no field of jsm.go is missing', (file) => {
    const entry = jsm.schemas[file]!;
    const schema = ours[entry.ours];
    expect(schema, `no schema of ours named ${entry.ours}`).toBeDefined();
    const have = new Set(fieldPaths(schema!));
    const theirs = [...new Set(theirPaths(entry.fields))];
    expect(theirs.length).toBeGreaterThan(0);
    const missing = theirs.filter((path) => !have.has(path));
    expect(missing).toEqual(justifiedMissing[file] ?? []);
  });

  it('every justified omission belongs to a compared file', () => {
    for (const file of Object.keys(justifiedMissing)) expect(jsm.schemas).toHaveProperty([file]);
  });

  it('every definition is used', () => {
    const used = new Set<string>();
    const collect = (fields: FieldEntry[]) => {
      for (const entry of fields) {
        if (typeof entry === 'string' || used.has(entry.$ref)) continue;
        used.add(entry.$ref);
        collect(jsm.definitions[entry.$ref]!.fields);
      }
    };
    for (const entry of Object.values(jsm.schemas)) collect(entry.fields);
    expect([...used].sort()).toEqual(Object.keys(jsm.definitions).sort());
  });
});
