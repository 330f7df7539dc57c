import * as z from 'zod';
import { durationNanos, int, peerInfoSchema, timestamp, uint } from './common.js';
import { streamStateSchema } from './stream-info.js';
import { fillSubjectPattern } from './subject-pattern.js';

/**
 * Payloads published under `$JS.EVENT.ADVISORY.>` and `$JS.EVENT.METRIC.>`. Every one starts
 * with `type`, a unique `id` and a nanosecond `timestamp`; `domain` is set when the server has
 * a JetStream domain.
 */

/** Subject prefixes of the events. */
export const JS_ADVISORY_PREFIX = '$JS.EVENT.ADVISORY';
export const JS_METRIC_PREFIX = '$JS.EVENT.METRIC';

/** The client that caused an event (API audit, snapshot, restore). */
export const clientInfoSchema = z.looseObject({
  start: timestamp().optional(),
  host: z.string().optional(),
  id: uint().optional(),
  acc: z.string().optional(),
  svc: z.string().optional(),
  user: z.string().optional(),
  name: z.string().optional(),
  lang: z.string().optional(),
  ver: z.string().optional(),
  /** Round-trip time in nanoseconds. */
  rtt: durationNanos().optional(),
  server: z.string().optional(),
  cluster: z.string().optional(),
  alts: z.array(z.string()).optional(),
  stop: timestamp().optional(),
  jwt: z.string().optional(),
  issuer_key: z.string().optional(),
  name_tag: z.string().optional(),
  tags: z.array(z.string()).optional(),
  kind: z.string().optional(),
  client_type: z.string().optional(),
  client_id: z.string().optional(),
  nonce: z.string().optional(),
  reply: z.string().optional(),
});
export type ClientInfo = z.infer<typeof clientInfoSchema>;

const advisoryType = (name: string) => `io.nats.jetstream.advisory.v1.${name}` as const;
const metricType = (name: string) => `io.nats.jetstream.metric.v1.${name}` as const;

function event<Shape extends z.core.$ZodLooseShape>(type: string, shape: Shape) {
  return z.looseObject({
    type: z.literal(type),
    id: z.string(),
    timestamp: timestamp(),
    domain: z.string().optional(),
    ...shape,
  });
}

const streamShape = { stream: z.string() };
const consumerShape = { stream: z.string(), consumer: z.string() };
const deliveryShape = {
  ...consumerShape,
  consumer_seq: uint(),
  stream_seq: uint(),
  deliveries: uint(),
};

export const apiAuditAdvisorySchema = event(advisoryType('api_audit'), {
  server: z.string(),
  client: clientInfoSchema,
  subject: z.string(),
  /** The raw request body; omitted when empty. */
  request: z.string().optional(),
  /** The raw JSON response. */
  response: z.string(),
});
export const actionSchema = z.enum(['create', 'delete', 'modify']);
export const streamActionAdvisorySchema = event(advisoryType('stream_action'), {
  ...streamShape,
  action: actionSchema,
  template: z.string().optional(),
});
export const consumerActionAdvisorySchema = event(advisoryType('consumer_action'), {
  ...consumerShape,
  action: actionSchema,
});
export const consumerPauseAdvisorySchema = event(advisoryType('consumer_pause'), {
  ...consumerShape,
  paused: z.boolean(),
  pause_until: timestamp().optional(),
});
export const consumerGroupPinnedAdvisorySchema = event(advisoryType('consumer_group_pinned'), {
  account: z.string().optional(),
  ...consumerShape,
  group: z.string(),
  pinned_id: z.string(),
});
export const consumerGroupUnpinnedAdvisorySchema = event(advisoryType('consumer_group_unpinned'), {
  account: z.string().optional(),
  ...consumerShape,
  group: z.string(),
  reason: z.string(),
});
export const maxDeliverAdvisorySchema = event(advisoryType('max_deliver'), {
  ...consumerShape,
  stream_seq: uint(),
  deliveries: uint(),
});
export const nakAdvisorySchema = event(advisoryType('nak'), deliveryShape);
export const terminatedAdvisorySchema = event(advisoryType('terminated'), {
  ...deliveryShape,
  reason: z.string().optional(),
});
export const consumerAckMetricSchema = event(metricType('consumer_ack'), {
  ...deliveryShape,
  /** Nanoseconds between delivery and ack. */
  ack_time: durationNanos(),
});
export const snapshotCreateAdvisorySchema = event(advisoryType('snapshot_create'), {
  ...streamShape,
  state: streamStateSchema,
  client: clientInfoSchema,
});
export const snapshotCompleteAdvisorySchema = event(advisoryType('snapshot_complete'), {
  ...streamShape,
  start: timestamp(),
  end: timestamp(),
  client: clientInfoSchema,
  error: z.string().optional(),
});
export const restoreCreateAdvisorySchema = event(advisoryType('restore_create'), {
  ...streamShape,
  client: clientInfoSchema,
});
export const restoreCompleteAdvisorySchema = event(advisoryType('restore_complete'), {
  ...streamShape,
  start: timestamp(),
  end: timestamp(),
  bytes: int(),
  client: clientInfoSchema,
});
export const streamLeaderElectedAdvisorySchema = event(advisoryType('stream_leader_elected'), {
  account: z.string().optional(),
  ...streamShape,
  leader: z.string(),
  replicas: z.array(peerInfoSchema).nullable(),
});
export const streamQuorumLostAdvisorySchema = event(advisoryType('stream_quorum_lost'), {
  account: z.string().optional(),
  ...streamShape,
  replicas: z.array(peerInfoSchema).nullable(),
});
export const streamBatchAbandonedAdvisorySchema = event(advisoryType('stream_batch_abandoned'), {
  account: z.string().optional(),
  ...streamShape,
  batch: z.string(),
  reason: z.string(),
});
/**
 * Slipstream's own advisory (nats-server has none for damaged data, up to 2.11 and on main): a
 * stream's stored data failed its checks, at start or on a read. `seqs` are the damaged
 * messages when the damage is in messages; `reason` says what was found and where.
 */
export const streamDamagedAdvisorySchema = event(advisoryType('stream_damaged'), {
  account: z.string().optional(),
  ...streamShape,
  seqs: z.array(uint()).optional(),
  reason: z.string(),
});
export const consumerLeaderElectedAdvisorySchema = event(advisoryType('consumer_leader_elected'), {
  account: z.string().optional(),
  ...consumerShape,
  leader: z.string(),
  replicas: z.array(peerInfoSchema).nullable(),
});
export const consumerQuorumLostAdvisorySchema = event(advisoryType('consumer_quorum_lost'), {
  account: z.string().optional(),
  ...consumerShape,
  replicas: z.array(peerInfoSchema).nullable(),
});
export const domainLeaderElectedAdvisorySchema = event(advisoryType('domain_leader_elected'), {
  leader: z.string(),
  replicas: z.array(peerInfoSchema).nullable(),
  cluster: z.string(),
});
export const serverOutOfSpaceAdvisorySchema = event(advisoryType('server_out_of_space'), {
  server: z.string(),
  server_id: z.string(),
  stream: z.string().optional(),
  cluster: z.string(),
});
export const serverRemovedAdvisorySchema = event(advisoryType('server_removed'), {
  server: z.string(),
  server_id: z.string(),
  cluster: z.string(),
});
export const metaRescueAdvisorySchema = event(advisoryType('meta_rescue'), {
  server: z.string(),
  server_id: z.string(),
  prev_quorum: int(),
  new_quorum: int(),
  cluster: z.string(),
});
export const apiLimitReachedAdvisorySchema = event(advisoryType('api_limit_reached'), {
  server: z.string(),
  dropped: int(),
});

/**
 * Every advisory and metric with the subject it is published on (tokens after the prefix;
 * `{stream}`/`{consumer}` name the varying tokens).
 */
export const jsEvents = {
  apiAudit: { subject: 'ADVISORY.API', schema: apiAuditAdvisorySchema },
  streamCreated: {
    subject: 'ADVISORY.STREAM.CREATED.{stream}',
    schema: streamActionAdvisorySchema,
  },
  streamUpdated: {
    subject: 'ADVISORY.STREAM.UPDATED.{stream}',
    schema: streamActionAdvisorySchema,
  },
  streamDeleted: {
    subject: 'ADVISORY.STREAM.DELETED.{stream}',
    schema: streamActionAdvisorySchema,
  },
  consumerCreated: {
    subject: 'ADVISORY.CONSUMER.CREATED.{stream}.{consumer}',
    schema: consumerActionAdvisorySchema,
  },
  consumerDeleted: {
    subject: 'ADVISORY.CONSUMER.DELETED.{stream}.{consumer}',
    schema: consumerActionAdvisorySchema,
  },
  consumerPause: {
    subject: 'ADVISORY.CONSUMER.PAUSE.{stream}.{consumer}',
    schema: consumerPauseAdvisorySchema,
  },
  consumerPinned: {
    subject: 'ADVISORY.CONSUMER.PINNED.{stream}.{consumer}',
    schema: consumerGroupPinnedAdvisorySchema,
  },
  consumerUnpinned: {
    subject: 'ADVISORY.CONSUMER.UNPINNED.{stream}.{consumer}',
    schema: consumerGroupUnpinnedAdvisorySchema,
  },
  maxDeliveries: {
    subject: 'ADVISORY.CONSUMER.MAX_DELIVERIES.{stream}.{consumer}',
    schema: maxDeliverAdvisorySchema,
  },
  msgNaked: {
    subject: 'ADVISORY.CONSUMER.MSG_NAKED.{stream}.{consumer}',
    schema: nakAdvisorySchema,
  },
  msgTerminated: {
    subject: 'ADVISORY.CONSUMER.MSG_TERMINATED.{stream}.{consumer}',
    schema: terminatedAdvisorySchema,
  },
  consumerAck: {
    subject: 'METRIC.CONSUMER.ACK.{stream}.{consumer}',
    schema: consumerAckMetricSchema,
  },
  snapshotCreate: {
    subject: 'ADVISORY.STREAM.SNAPSHOT_CREATE.{stream}',
    schema: snapshotCreateAdvisorySchema,
  },
  snapshotComplete: {
    subject: 'ADVISORY.STREAM.SNAPSHOT_COMPLETE.{stream}',
    schema: snapshotCompleteAdvisorySchema,
  },
  restoreCreate: {
    subject: 'ADVISORY.STREAM.RESTORE_CREATE.{stream}',
    schema: restoreCreateAdvisorySchema,
  },
  restoreComplete: {
    subject: 'ADVISORY.STREAM.RESTORE_COMPLETE.{stream}',
    schema: restoreCompleteAdvisorySchema,
  },
  streamLeaderElected: {
    subject: 'ADVISORY.STREAM.LEADER_ELECTED.{stream}',
    schema: streamLeaderElectedAdvisorySchema,
  },
  streamQuorumLost: {
    subject: 'ADVISORY.STREAM.QUORUM_LOST.{stream}',
    schema: streamQuorumLostAdvisorySchema,
  },
  streamBatchAbandoned: {
    subject: 'ADVISORY.STREAM.BATCH_ABANDONED.{stream}',
    schema: streamBatchAbandonedAdvisorySchema,
  },
  streamDamaged: {
    subject: 'ADVISORY.STREAM.DAMAGED.{stream}',
    schema: streamDamagedAdvisorySchema,
  },
  consumerLeaderElected: {
    subject: 'ADVISORY.CONSUMER.LEADER_ELECTED.{stream}.{consumer}',
    schema: consumerLeaderElectedAdvisorySchema,
  },
  consumerQuorumLost: {
    subject: 'ADVISORY.CONSUMER.QUORUM_LOST.{stream}.{consumer}',
    schema: consumerQuorumLostAdvisorySchema,
  },
  domainLeaderElected: {
    subject: 'ADVISORY.DOMAIN.LEADER_ELECTED',
    schema: domainLeaderElectedAdvisorySchema,
  },
  serverOutOfStorage: {
    subject: 'ADVISORY.SERVER.OUT_OF_STORAGE',
    schema: serverOutOfSpaceAdvisorySchema,
  },
  serverRemoved: { subject: 'ADVISORY.SERVER.REMOVED', schema: serverRemovedAdvisorySchema },
  metaRescue: { subject: 'ADVISORY.SERVER.META_RESCUE', schema: metaRescueAdvisorySchema },
  apiLimitReached: { subject: 'ADVISORY.API.LIMIT_REACHED', schema: apiLimitReachedAdvisorySchema },
} as const;

export type JsEventName = keyof typeof jsEvents;

/** The full subject of an event, e.g. `jsEventSubject('streamCreated', { stream: 'S' })`. */
export function jsEventSubject(
  name: JsEventName,
  params: { stream?: string; consumer?: string } = {},
) {
  return `$JS.EVENT.${fillSubjectPattern(jsEvents[name].subject, params, `jsEventSubject(${name})`)}`;
}

const schemaByType = new Map<string, z.ZodType>(
  Object.values(jsEvents).map(({ schema }) => [schema.shape.type.value, schema]),
);

/** The schema for an event `type` string, or undefined for a type this package does not know. */
export function jsEventSchemaForType(type: string): z.ZodType | undefined {
  return schemaByType.get(type);
}
