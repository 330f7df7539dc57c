import type { NatsConnection } from '@slipstream/client';
import type { ConsumerConfig, StreamConfig } from '@slipstream/jsapi';
import { JetStreamError } from './errors.js';

/**
 * JetStream features that need a newer server than 2.9, named as nats.js v3 names them
 * (`Feature` of @nats-io/nats-core), with the first nats-server version that has them.
 */
export const Feature = {
  JS_MULTIPLE_CONSUMER_FILTER: '2.10.0',
  JS_STREAM_CONSUMER_METADATA: '2.10.0',
  JS_STREAM_FIRST_SEQ: '2.10.0',
  JS_STREAM_SUBJECT_TRANSFORM: '2.10.0',
  JS_STREAM_SOURCE_SUBJECT_TRANSFORM: '2.10.0',
  JS_STREAM_COMPRESSION: '2.10.0',
  JS_DEFAULT_CONSUMER_LIMITS: '2.10.0',
  JS_PRIORITY_GROUPS: '2.11.0',
  /** CONSUMER.PAUSE and `pause_until` (nats.js does not gate them; a 2.10 server never answers). */
  JS_CONSUMER_PAUSE: '2.11.0',
  /** `+TERM` with a reason (not in nats.js): 2.9 ignores such an ack and redelivers. */
  JS_TERM_REASON: '2.10.0',
  /** Per-message TTLs (`allow_msg_ttl`, `Nats-TTL`) and subject delete markers. */
  JS_MSG_TTL: '2.11.0',
  /** CONSUMER.RESET. */
  JS_CONSUMER_RESET: '2.14.0',
} as const;
export type Feature = keyof typeof Feature;

/** `major.minor.patch` of a version string as numbers (a suffix such as `-beta` is ignored). */
function parseVersion(version: string): number[] {
  return version
    .split(/[.-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);
}

function atLeast(version: string, min: string): boolean {
  const have = parseVersion(version);
  const need = parseVersion(min);
  for (let i = 0; i < 3; i++) {
    if (have[i]! !== need[i]!) return have[i]! > need[i]!;
  }
  return true;
}

/**
 * Whether the server of `nc` (as its INFO says) has `feature`, and the version that brought it
 * (nats.js's `nc.features.get(feature)`). No INFO yet: not known to be there.
 */
export function serverFeature(nc: NatsConnection, feature: Feature): { ok: boolean; min: string } {
  const min = Feature[feature];
  const version = nc.info?.version;
  return { ok: version !== undefined && atLeast(version, min), min };
}

/**
 * Throws before anything is sent when the server lacks `feature`, naming `what` needs it (the
 * message nats.js gives: "<what> requires server <min>"): an older server would ignore the field
 * silently, or never answer the request.
 */
export function requireFeature(nc: NatsConnection, feature: Feature, what: string): void {
  const { ok, min } = serverFeature(nc, feature);
  if (!ok) throw new JetStreamError(`${what} requires server ${min}`);
}

/** What a field needs: present and meaningful (`on`) in a config, it requires `feature`. */
interface FieldNeed<C> {
  what: string;
  feature: Feature;
  on: (config: Partial<C>) => boolean;
}

const hasEntries = (value: object | undefined | null) =>
  value !== undefined && value !== null && Object.keys(value).length > 0;

const sourceTransforms = (source: { subject_transforms?: unknown[] | null } | undefined) =>
  (source?.subject_transforms?.length ?? 0) > 0;

const streamNeeds: FieldNeed<StreamConfig>[] = [
  {
    what: "stream 'metadata'",
    feature: 'JS_STREAM_CONSUMER_METADATA',
    on: (c) => hasEntries(c.metadata),
  },
  { what: "stream 'first_seq'", feature: 'JS_STREAM_FIRST_SEQ', on: (c) => (c.first_seq ?? 0) > 0 },
  {
    what: "stream 'subject_transform'",
    feature: 'JS_STREAM_SUBJECT_TRANSFORM',
    on: (c) => hasEntries(c.subject_transform),
  },
  {
    what: "stream 'compression'",
    feature: 'JS_STREAM_COMPRESSION',
    on: (c) => c.compression !== undefined && c.compression !== 'none',
  },
  {
    what: "stream 'consumer_limits'",
    feature: 'JS_DEFAULT_CONSUMER_LIMITS',
    on: (c) => hasEntries(c.consumer_limits),
  },
  {
    what: "stream sources 'subject_transforms'",
    feature: 'JS_STREAM_SOURCE_SUBJECT_TRANSFORM',
    on: (c) => c.sources?.some(sourceTransforms) ?? false,
  },
  {
    what: "stream mirror 'subject_transforms'",
    feature: 'JS_STREAM_SOURCE_SUBJECT_TRANSFORM',
    on: (c) => sourceTransforms(c.mirror),
  },
  { what: "stream 'allow_msg_ttl'", feature: 'JS_MSG_TTL', on: (c) => c.allow_msg_ttl === true },
  {
    what: "stream 'subject_delete_marker_ttl'",
    feature: 'JS_MSG_TTL',
    on: (c) => (c.subject_delete_marker_ttl ?? 0) > 0,
  },
];

const consumerNeeds: FieldNeed<ConsumerConfig>[] = [
  {
    what: "consumer 'filter_subjects'",
    feature: 'JS_MULTIPLE_CONSUMER_FILTER',
    on: (c) => (c.filter_subjects?.length ?? 0) > 0,
  },
  {
    what: "consumer 'metadata'",
    feature: 'JS_STREAM_CONSUMER_METADATA',
    on: (c) => hasEntries(c.metadata),
  },
  {
    what: "consumer 'pause_until'",
    feature: 'JS_CONSUMER_PAUSE',
    on: (c) => Boolean(c.pause_until),
  },
  {
    what: "consumer 'priority_groups'",
    feature: 'JS_PRIORITY_GROUPS',
    on: (c) => (c.priority_groups?.length ?? 0) > 0,
  },
  {
    what: "consumer 'priority_policy'",
    feature: 'JS_PRIORITY_GROUPS',
    on: (c) => c.priority_policy !== undefined && c.priority_policy !== 'none',
  },
];

function requireFields<C>(nc: NatsConnection, needs: FieldNeed<C>[], config: Partial<C>): void {
  for (const need of needs) if (need.on(config)) requireFeature(nc, need.feature, need.what);
}

/**
 * Refuses a stream config (of an add, or the fields an update changes) with a field the server
 * is too old for, as nats.js does before sending: nats-server 2.9 would drop it silently.
 */
export const requireStreamFeatures = (nc: NatsConnection, config: Partial<StreamConfig>) =>
  requireFields(nc, streamNeeds, config);

/** The same for a consumer config. */
export const requireConsumerFeatures = (nc: NatsConnection, config: Partial<ConsumerConfig>) =>
  requireFields(nc, consumerNeeds, config);
