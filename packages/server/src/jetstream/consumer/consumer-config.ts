/**
 * A consumer's config as nats-server takes it: the defaults it fills in
 * (setConsumerConfigDefaults, with the stream's consumer_limits of 2.10), the rules every create
 * must pass (checkConsumerCfg: 2.9.10's, plus 2.10's filter_subjects and metadata and 2.11's
 * priority groups), what an update may change (checkNewConsumerConfig), and the config as it
 * writes it back.
 */
import {
  ApiError,
  type ConsumerConfig,
  consumerDefaults,
  jsErrors,
  type StreamConfig,
} from '@slipstream/jsapi';
import {
  hasWildcard,
  isSubsetMatch,
  isValidPublishSubject,
  isValidSubscribeSubject,
  subjectsCollide,
} from '@slipstream/protocol';
import { formatGoDuration } from '../shared/go-duration.js';
import { isGoEmpty } from '../shared/go-json.js';
import { withoutServerKeys } from './consumer-api-level.js';
import { configuredFilters } from './consumer-filters.js';
import { pauseDeadline, wirePauseUntil } from './consumer-pause.js';

const MAX_NAME_LENGTH = 255;
const MAX_DESCRIPTION_LENGTH = 4096;
const MIN_HEARTBEAT_NANOS = 100_000_000;
const MIN_MAX_EXPIRES_NANOS = 1_000_000;
/** JSMaxMetadataLen: the keys and values of `metadata` together, in bytes. */
const MAX_METADATA_BYTES = 128 * 1024;
const invalidName = /[ \t\r\n\f.*>]/;

/**
 * nats-server's ConsumerConfig fields in its JSON order (2.9.10's, then those 2.10 and 2.11
 * added); fields it does not know are dropped.
 */
const FIELDS = [
  'durable_name',
  'name',
  'description',
  'deliver_policy',
  'opt_start_seq',
  'opt_start_time',
  'ack_policy',
  'ack_wait',
  'max_deliver',
  'backoff',
  'filter_subject',
  'filter_subjects',
  'replay_policy',
  'rate_limit_bps',
  'sample_freq',
  'max_waiting',
  'max_ack_pending',
  'idle_heartbeat',
  'flow_control',
  'headers_only',
  'max_batch',
  'max_expires',
  'max_bytes',
  'deliver_subject',
  'deliver_group',
  'inactive_threshold',
  'num_replicas',
  'mem_storage',
  'direct',
  'metadata',
  'pause_until',
  'priority_groups',
  'priority_policy',
  'priority_timeout',
] as const satisfies readonly (keyof ConsumerConfig)[];

/** Written even when empty (no `omitempty` in nats-server's struct tags). */
const ALWAYS = new Set<string>(['deliver_policy', 'ack_policy', 'replay_policy', 'num_replicas']);

/** Enum fields whose zero value Go's omitempty leaves out. */
const ZERO: Partial<Record<keyof ConsumerConfig, unknown>> = { priority_policy: 'none' };

/** A priority group's name (2.11 consumer.go:46 validGroupName). */
const GROUP_NAME = /^[a-zA-Z0-9/_=-]{1,16}$/;

/** The config as nats-server writes it: its fields, its order, empty ones omitted. */
export function wireConsumerConfig(config: ConsumerConfig): ConsumerConfig {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = config[field];
    if (value === undefined || value === ZERO[field]) continue;
    if (!ALWAYS.has(field) && isGoEmpty(value)) continue;
    out[field] = value;
  }
  return out as ConsumerConfig;
}

/**
 * True when two configs would be written the same, the API level keys the server writes
 * aside (a consumer stored before they were written is the same consumer).
 */
export function sameConsumerConfig(a: ConsumerConfig, b: ConsumerConfig): boolean {
  const wire = (config: ConsumerConfig) =>
    JSON.stringify(wireConsumerConfig({ ...config, metadata: withoutServerKeys(config.metadata) }));
  return wire(a) === wire(b);
}

export function isPull(config: ConsumerConfig): boolean {
  return !config.deliver_subject;
}

/**
 * A requested config with nats-server's defaults, trimmed to the fields it knows. The stream's
 * consumer_limits fill in max_ack_pending and inactive_threshold before the server's own
 * defaults do (2.11 consumer.go:560-570). A `pedantic` create (2.11) is refused (10157) where a
 * default would change what it asked for.
 */
export function withConsumerDefaults(
  requested: ConsumerConfig,
  stream: StreamConfig,
  pedantic = false,
): ConsumerConfig {
  const config = wireConsumerConfig(requested);
  normaliseNegatives(config, pedantic);
  config.deliver_policy ??= 'all';
  config.ack_policy ??= 'none';
  config.replay_policy ??= 'instant';
  config.num_replicas ??= 0;
  const acks = config.ack_policy !== 'none';
  if (isPull(config) && !config.max_waiting) config.max_waiting = consumerDefaults.maxWaiting;
  if (acks && !config.ack_wait) config.ack_wait = consumerDefaults.ackWaitNanos;
  if (!config.max_deliver) config.max_deliver = -1;
  if (config.backoff?.length) {
    if (pedantic && config.ack_wait !== config.backoff[0]) {
      throw pedanticError('first backoff value has to equal batch AckWait');
    }
    config.ack_wait = config.backoff[0];
  }
  const limits = stream.consumer_limits;
  if (!config.max_ack_pending && limits?.max_ack_pending) {
    if (pedantic) {
      throw pedanticError("max_ack_pending must be set if it's configured in stream limits");
    }
    config.max_ack_pending = limits.max_ack_pending;
  }
  if (!config.inactive_threshold && limits?.inactive_threshold) {
    if (pedantic) {
      throw pedanticError("inactive_threshold must be set if it's configured in stream limits");
    }
    config.inactive_threshold = limits.inactive_threshold;
  }
  if (acks && !config.max_ack_pending) config.max_ack_pending = consumerDefaults.maxAckPending;
  if (!config.durable_name && !(config.inactive_threshold! > 0)) {
    config.inactive_threshold = consumerDefaults.ephemeralInactiveThresholdNanos;
  }
  if (config.priority_policy === 'pinned_client' && !config.priority_timeout) {
    config.priority_timeout = consumerDefaults.priorityTimeoutNanos;
  }
  // Kept in UTC, as 2.11's updateConfig stores it (consumer.go:2147); Go's zero time is none.
  if (config.pause_until !== undefined) {
    config.pause_until = wirePauseUntil(pauseDeadline(config.pause_until));
  }
  return config;
}

/**
 * 2.12 sets a negative limit to its "none" (-1 for max_deliver and max_ack_pending, 0 for the
 * rest) before the defaults, and a `pedantic` create is refused instead (setConsumerConfigDefaults,
 * v2.12.1 consumer.go:567-623).
 */
function normaliseNegatives(config: ConsumerConfig, pedantic: boolean): void {
  const unlimited = ['max_deliver', 'max_ack_pending'] as const;
  for (const field of unlimited) {
    if ((config[field] ?? 0) < -1) {
      if (pedantic) throw pedanticError(`${field} must be set to -1`);
      config[field] = -1;
    }
  }
  const positive = [
    'max_waiting',
    'max_batch',
    'max_expires',
    'max_bytes',
    'idle_heartbeat',
    'inactive_threshold',
    'priority_timeout',
  ] as const;
  for (const field of positive) {
    if ((config[field] ?? 0) < 0) {
      if (pedantic) throw pedanticError(`${field} must not be negative`);
      delete config[field];
    }
  }
}

function pedanticError(err: string): ApiError {
  return ApiError.of(jsErrors.JSPedanticErrF, { err });
}

function invalidPolicy(err: string): ApiError {
  return ApiError.of(jsErrors.JSConsumerInvalidPolicyErrF, { err });
}

const startConflict = (policy: string, start: string) =>
  invalidPolicy(
    `consumer delivery policy is deliver ${policy}, but optional start ${start} is also set`,
  );
const startMissing = (policy: string, missing: string) =>
  invalidPolicy(
    `consumer delivery policy is deliver ${policy}, but optional ${missing} is not set`,
  );

/** checkConsumerCfg: the rules a defaulted config must pass against its stream. */
export function checkConsumerConfig(config: ConsumerConfig, stream: StreamConfig): void {
  const replicas = config.num_replicas ?? 0;
  if (replicas < 0) throw ApiError.of(jsErrors.JSReplicasCountCannotBeNegative);
  if (replicas > 0 && replicas > (stream.num_replicas ?? 1)) {
    throw ApiError.of(jsErrors.JSConsumerReplicasExceedsStream);
  }
  // 2.12 consumer.go:714-722
  if (config.backoff?.some((step) => step < 0)) {
    throw ApiError.of(jsErrors.JSConsumerBackOffNegativeErr);
  }
  if ((config.ack_wait ?? 0) < 0) throw ApiError.of(jsErrors.JSConsumerAckWaitNegativeErr);
  checkBackoffFitsMaxDeliver(config);
  if ((config.description?.length ?? 0) > MAX_DESCRIPTION_LENGTH) {
    throw ApiError.of(jsErrors.JSConsumerDescriptionTooLongErrF, { max: MAX_DESCRIPTION_LENGTH });
  }
  if (isPull(config)) checkPullOptions(config, stream);
  else checkPushOptions(config, stream);
  checkStreamLimits(config, stream);
  if (config.direct) {
    if (isPull(config)) throw ApiError.of(jsErrors.JSConsumerDirectRequiresPushErr);
    if (config.durable_name) throw ApiError.of(jsErrors.JSConsumerDirectRequiresEphemeralErr);
  }
  checkFilters(config);
  checkStartPolicy(config);
  if (config.sample_freq && !/^\d+%?$/.test(config.sample_freq)) {
    throw ApiError.of(jsErrors.JSConsumerInvalidSamplingErrF, {
      err: `strconv.Atoi: parsing ${JSON.stringify(config.sample_freq.replace(/%$/, ''))}: invalid syntax`,
    });
  }
  if (config.flow_control && !config.idle_heartbeat) {
    throw ApiError.of(jsErrors.JSConsumerWithFlowControlNeedsHeartbeats);
  }
  if (config.durable_name && config.name && config.name !== config.durable_name) {
    throw ApiError.of(jsErrors.JSConsumerCreateDurableAndNameMismatch);
  }
  let metadataBytes = 0;
  for (const [key, value] of Object.entries(config.metadata ?? {})) {
    metadataBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (metadataBytes > MAX_METADATA_BYTES) {
    throw ApiError.of(jsErrors.JSConsumerMetadataLengthErrF, {
      limit: `${MAX_METADATA_BYTES / 1024}KB`,
    });
  }
  checkPriorityGroups(config);
}

/**
 * A priority policy is for pull consumers and needs groups, each with a valid name; without
 * one, groups and a priority_timeout are refused (2.12 consumer.go:917-941).
 */
function checkPriorityGroups(config: ConsumerConfig): void {
  if ((config.priority_policy ?? 'none') === 'none') {
    if (config.priority_groups?.length) {
      throw ApiError.of(jsErrors.JSConsumerPriorityGroupWithPolicyNone);
    }
    if ((config.priority_timeout ?? 0) > 0) {
      throw ApiError.of(jsErrors.JSConsumerPinnedTTLWithoutPriorityPolicyNone);
    }
    return;
  }
  if (config.deliver_subject) throw ApiError.of(jsErrors.JSConsumerPushWithPriorityGroupErr);
  const groups = config.priority_groups ?? [];
  if (groups.length === 0) throw ApiError.of(jsErrors.JSConsumerPriorityPolicyWithoutGroup);
  for (const group of groups) {
    if (group === '') throw ApiError.of(jsErrors.JSConsumerEmptyGroupName);
    if (!GROUP_NAME.test(group)) throw ApiError.of(jsErrors.JSConsumerInvalidGroupNameErr);
  }
}

/** CONSUMER.UNPIN's group: named, and a valid name (2.11 jetstream_api.go:3494-3505). */
export function checkUnpinGroup(group: string | undefined): string {
  if (!group) {
    throw ApiError.of(jsErrors.JSInvalidJSONErr, { err: 'consumer group not specified' });
  }
  if (!GROUP_NAME.test(group)) throw ApiError.of(jsErrors.JSConsumerInvalidGroupNameErr);
  return group;
}

/** The stream's consumer_limits cap what a consumer may set (2.10 consumer.go:554-559). */
function checkStreamLimits(config: ConsumerConfig, stream: StreamConfig): void {
  const limits = stream.consumer_limits;
  const maxAckPending = limits?.max_ack_pending ?? 0;
  if (maxAckPending > 0 && (config.max_ack_pending ?? 0) > maxAckPending) {
    throw ApiError.of(jsErrors.JSConsumerMaxPendingAckExcessErrF, { limit: maxAckPending });
  }
  const inactive = limits?.inactive_threshold ?? 0;
  if (inactive > 0 && (config.inactive_threshold ?? 0) > inactive) {
    throw ApiError.of(jsErrors.JSConsumerInactiveThresholdExcess, {
      limit: formatGoDuration(inactive),
    });
  }
}

/**
 * filter_subject or filter_subjects (not both, 10136), no empty entry (10139), each a valid
 * subject (10052), no two overlapping (10138) (consumer.go:706-735 at v2.11.0). A filter need not
 * lie within the stream's subjects: 2.10 dropped 2.9.10's check (10093), and such a consumer
 * simply has nothing pending until the stream holds messages on its subjects.
 */
function checkFilters(config: ConsumerConfig): void {
  const many = config.filter_subjects ?? [];
  if (config.filter_subject && many.length > 0) {
    throw ApiError.of(jsErrors.JSConsumerDuplicateFilterSubjects);
  }
  if (many.includes('')) throw ApiError.of(jsErrors.JSConsumerEmptyFilter);
  const filters = configuredFilters(config);
  for (const [i, filter] of filters.entries()) {
    if (!isValidSubscribeSubject(filter)) {
      throw ApiError.of(jsErrors.JSStreamInvalidConfigF, { err: 'invalid subject' });
    }
    if (filters.some((other, j) => j !== i && subjectsCollide(filter, other))) {
      throw ApiError.of(jsErrors.JSConsumerOverlappingSubjectFilters);
    }
  }
}

function checkPushOptions(config: ConsumerConfig, stream: StreamConfig): void {
  const deliver = config.deliver_subject!;
  if (hasWildcard(deliver)) throw ApiError.of(jsErrors.JSConsumerDeliverToWildcardsErr);
  if (!isValidPublishSubject(deliver)) throw ApiError.of(jsErrors.JSConsumerInvalidDeliverSubject);
  if ((stream.subjects ?? []).some((subject) => isSubsetMatch(deliver, subject))) {
    throw ApiError.of(jsErrors.JSConsumerDeliverCycleErr);
  }
  if (config.max_waiting) throw ApiError.of(jsErrors.JSConsumerPushMaxWaitingErr);
  if (config.max_ack_pending! > 0 && config.ack_policy === 'none') {
    throw ApiError.of(jsErrors.JSConsumerMaxPendingAckPolicyRequiredErr);
  }
  const heartbeat = config.idle_heartbeat ?? 0;
  if (heartbeat > 0 && heartbeat < MIN_HEARTBEAT_NANOS) {
    throw ApiError.of(jsErrors.JSConsumerSmallHeartbeatErr);
  }
}

function checkPullOptions(config: ConsumerConfig, stream: StreamConfig): void {
  if (config.ack_policy === 'none' && stream.retention === 'workqueue') {
    // 2.9.10's wording; the catalog has the newer one.
    const { code, err_code } = jsErrors.JSConsumerPullRequiresAckErr;
    throw new ApiError({
      code,
      err_code,
      description: 'consumer in pull mode requires ack policy',
    });
  }
  if (config.rate_limit_bps) throw ApiError.of(jsErrors.JSConsumerPullWithRateLimitErr);
  if (config.max_waiting! < 0) throw ApiError.of(jsErrors.JSConsumerMaxWaitingNegativeErr);
  if (config.idle_heartbeat! > 0) throw ApiError.of(jsErrors.JSConsumerHBRequiresPushErr);
  if (config.flow_control) throw ApiError.of(jsErrors.JSConsumerFCRequiresPushErr);
  if (config.max_batch! < 0) throw ApiError.of(jsErrors.JSConsumerMaxRequestBatchNegativeErr);
  const maxExpires = config.max_expires ?? 0;
  if (maxExpires !== 0 && maxExpires < MIN_MAX_EXPIRES_NANOS) {
    throw ApiError.of(jsErrors.JSConsumerMaxRequestExpiresTooSmall);
  }
}

function checkStartPolicy(config: ConsumerConfig): void {
  const seq = (config.opt_start_seq ?? 0) > 0;
  const time = config.opt_start_time !== undefined;
  switch (config.deliver_policy) {
    case 'all':
    case 'last':
    case 'new':
    case 'last_per_subject': {
      const policy =
        config.deliver_policy === 'last_per_subject' ? 'last per subject' : config.deliver_policy;
      if (seq) throw startConflict(policy, 'sequence');
      if (time) throw startConflict(policy, 'time');
      if (config.deliver_policy === 'last_per_subject' && configuredFilters(config).length === 0) {
        throw startMissing(policy, 'filter subject');
      }
      return;
    }
    case 'by_start_sequence':
      if (!seq) throw startMissing('by start sequence', 'start sequence');
      if (time) throw startConflict('by start sequence', 'time');
      return;
    case 'by_start_time':
      if (!time) throw startMissing('by start time', 'start time');
      if (seq) throw startConflict('by start time', 'start sequence');
      return;
  }
}

/** A consumer's name: durable name, else the requested name; checked as nats-server does. */
export function checkConsumerName(name: string): void {
  if (name.length > MAX_NAME_LENGTH) {
    throw ApiError.of(jsErrors.JSConsumerNameTooLongErrF, { max: MAX_NAME_LENGTH });
  }
  if (invalidName.test(name)) throw ApiError.of(jsErrors.JSConsumerBadDurableNameErr);
}

/**
 * checkNewConsumerConfig: what an update of an existing consumer may not change. Its errors
 * reach the client as a consumer create error (500, 10012) with this text.
 */
export function checkConsumerUpdate(
  current: ConsumerConfig,
  next: ConsumerConfig,
  deliverSubjectBound: () => boolean,
): void {
  if (sameConsumerConfig(current, next)) return;
  const fixed: [keyof ConsumerConfig, string][] = [
    ['deliver_policy', 'deliver policy can not be updated'],
    ['opt_start_seq', 'start sequence can not be updated'],
    ['opt_start_time', 'start time can not be updated'],
    ['ack_policy', 'ack policy can not be updated'],
    ['replay_policy', 'replay policy can not be updated'],
    ['idle_heartbeat', 'heart beats can not be updated'],
    ['flow_control', 'flow control can not be updated'],
    ['max_waiting', 'max waiting can not be updated'],
  ];
  for (const [field, err] of fixed) {
    if ((current[field] || undefined) !== (next[field] || undefined)) throw createError(err);
  }
  if (current.deliver_subject !== next.deliver_subject) {
    if (!current.deliver_subject) throw createError('can not update pull consumer to push based');
    if (!next.deliver_subject) throw createError('can not update push consumer to pull based');
    if (deliverSubjectBound()) throw ApiError.of(jsErrors.JSConsumerNameExistErr);
  }
  checkBackoffFitsMaxDeliver(next);
}

/**
 * A backoff list may not have more steps than there are deliveries: 2.11 refuses only more
 * steps than a limited max_deliver (consumer.go:627 and :2127 at v2.11.0), where 2.9.10 also
 * refused as many steps as deliveries and any unlimited max_deliver (`MaxDeliver <= lbo`).
 */
function checkBackoffFitsMaxDeliver(config: ConsumerConfig): void {
  const steps = config.backoff?.length ?? 0;
  const limited = config.max_deliver !== -1;
  if (steps > 0 && limited && steps > config.max_deliver!) {
    throw ApiError.of(jsErrors.JSConsumerMaxDeliverBackoffErr);
  }
}

function createError(err: string): ApiError {
  return ApiError.of(jsErrors.JSConsumerCreateErrF, { err });
}

/** The percentage of acks sampled into metric advisories (0: none). */
export function sampleFrequency(config: ConsumerConfig): number {
  return config.sample_freq ? Number.parseInt(config.sample_freq, 10) : 0;
}
