/**
 * A stream's configuration as nats-server accepts it (stream.go checkStreamCfg and
 * configUpdateCheck, v2.9.10 with the stream fields of v2.10.0 and v2.11.0): defaults applied,
 * every rule checked in nats-server's order, each broken rule thrown as the catalog error a
 * client of nats-server would get.
 */
import {
  ApiError,
  DEFAULT_DUPLICATE_WINDOW_NANOS,
  jsErrors,
  type StreamConfig,
  type StreamSource,
  streamConfigWithDefaults,
} from '@slipstream/jsapi';
import {
  isSubsetMatch,
  isValidPublishSubject,
  isValidSubscribeSubject,
  subjectsCollide,
} from '@slipstream/protocol';
import { NATS_COMPATIBLE_VERSION } from '../../version.js';
import { isGoEmpty } from '../shared/go-json.js';
import { transformProblem } from '../shared/subject-transform.js';
import type { StoreLimits } from '../store/message-store.js';
import {
  checkCounterAndScheduleToggles,
  checkCounterAndScheduleUpdate,
} from './counter-schedule-config.js';
import { checkPersistMode } from './persist-mode.js';
import { isAtLeast, withoutServerMetadata, withRequiredApiLevel } from './stream-api-level.js';

/** The limits whose "none" is -1, in the order nats-server 2.12 checks them. */
const PEDANTIC_UNLIMITED = [
  'max_msgs',
  'max_msgs_per_subject',
  'max_bytes',
  'max_msg_size',
  'max_consumers',
] as const;

/** Streams a config may refer to (mirrors and sources). */
export type StreamConfigLookup = (name: string) => StreamConfig | undefined;

const MAX_NAME_LENGTH = 255;
const MAX_DESCRIPTION_LENGTH = 4 * 1024;
/** Keys plus values (jetstream_api.go JSMaxMetadataLen). */
const MAX_METADATA_LENGTH = 128 * 1024;
const NANOS_PER_SECOND = 1_000_000_000;
const MIN_DURATION_NANOS = 100_000_000;
const invalidName = /[ \t\r\n\f.*>]/;

const invalid = (err: string) => ApiError.of(jsErrors.JSStreamInvalidConfigF, { err });
/** nats-server's texts already start with "pedantic mode:", which the catalog entry repeats. */
const pedanticError = (err: string) => ApiError.of(jsErrors.JSPedanticErrF, { err });

/**
 * The fields of a stream config up to nats-server 2.11, in the order it writes them
 * (stream.go StreamConfig, v2.11.0:48-113), each with whether Go leaves it out when empty
 * (`omitempty`). Fields of later servers are not kept: 2.11 drops them.
 */
const FIELDS: ReadonlyArray<readonly [keyof StreamConfig, 'omitempty' | 'always']> = [
  ['name', 'always'],
  ['description', 'omitempty'],
  ['subjects', 'omitempty'],
  ['retention', 'always'],
  ['max_consumers', 'always'],
  ['max_msgs', 'always'],
  ['max_bytes', 'always'],
  ['max_age', 'always'],
  ['max_msgs_per_subject', 'always'],
  ['max_msg_size', 'omitempty'],
  ['discard', 'always'],
  ['storage', 'always'],
  ['num_replicas', 'always'],
  ['no_ack', 'omitempty'],
  ['template_owner', 'omitempty'],
  ['duplicate_window', 'omitempty'],
  ['placement', 'omitempty'],
  ['mirror', 'omitempty'],
  ['sources', 'omitempty'],
  ['compression', 'always'],
  ['first_seq', 'omitempty'],
  ['subject_transform', 'omitempty'],
  ['republish', 'omitempty'],
  ['allow_direct', 'always'],
  ['mirror_direct', 'always'],
  ['discard_new_per_subject', 'omitempty'],
  ['sealed', 'always'],
  ['deny_delete', 'always'],
  ['deny_purge', 'always'],
  ['allow_rollup_hdrs', 'always'],
  ['consumer_limits', 'always'],
  ['allow_msg_ttl', 'always'],
  ['subject_delete_marker_ttl', 'omitempty'],
  ['allow_msg_counter', 'omitempty'],
  ['allow_atomic', 'omitempty'],
  ['allow_msg_schedules', 'omitempty'],
  ['persist_mode', 'omitempty'],
  ['metadata', 'omitempty'],
];

/** What Go writes for fields it always writes, when a config (stored before them) lacks them. */
const WIRE_DEFAULTS: Partial<Record<keyof StreamConfig, unknown>> = {
  compression: 'none',
  consumer_limits: {},
  allow_msg_ttl: false,
};

/** The config as nats-server writes it: its fields in its order, empty ones omitted. */
export function wireStreamConfig(config: StreamConfig): StreamConfig {
  const out: Record<string, unknown> = {};
  for (const [field, empty] of FIELDS) {
    const value = config[field] ?? WIRE_DEFAULTS[field];
    if (value === undefined || (empty === 'omitempty' && isGoEmpty(value))) continue;
    if (field === 'placement') out[field] = wirePlacement(value as object);
    else if (field === 'consumer_limits') out[field] = wireConsumerLimits(value as object);
    else out[field] = value;
  }
  return out as StreamConfig;
}

function wirePlacement(placement: { cluster?: string; tags?: string[] }) {
  return {
    ...(placement.cluster ? { cluster: placement.cluster } : {}),
    ...(placement.tags?.length ? { tags: placement.tags } : {}),
  };
}

/** `{}` when unset: Go writes the struct always, its two fields only when set. */
function wireConsumerLimits(limits: { inactive_threshold?: number; max_ack_pending?: number }) {
  return {
    ...(limits.inactive_threshold ? { inactive_threshold: limits.inactive_threshold } : {}),
    ...(limits.max_ack_pending ? { max_ack_pending: limits.max_ack_pending } : {}),
  };
}

/** True when two checked configs are the same (a repeated create is then not an error). */
export function sameStreamConfig(a: StreamConfig, b: StreamConfig): boolean {
  const wire = (config: StreamConfig) =>
    JSON.stringify(wireStreamConfig(withoutServerMetadata(config)));
  return wire(a) === wire(b);
}

/** The request of a STREAM.CREATE, checked as the create handler does before checkStreamCfg. */
export function checkStreamCreate(
  subjectName: string,
  requested: StreamConfig,
  lookup: StreamConfigLookup,
): StreamConfig {
  if (requested.name !== subjectName) throw ApiError.of(jsErrors.JSStreamMismatchErr);
  if (/[/\\]/.test(subjectName)) {
    throw ApiError.of(jsErrors.JSStreamNameContainsPathSeparatorsErr);
  }
  if (requested.sealed) throw invalid('stream configuration for create can not be sealed');
  if (requested.mirror_direct && !requested.mirror) {
    throw invalid('stream has no mirror but does have mirror direct');
  }
  const config = checkStreamConfig(requested, lookup);
  if (config.num_replicas! > 1) throw ApiError.of(jsErrors.JSStreamReplicasNotSupportedErr);
  return withRequiredApiLevel(config);
}

/** checkStreamCfg: defaults and the rules every create and update must pass. */
export function checkStreamConfig(
  requested: StreamConfig,
  lookup: StreamConfigLookup,
  /** The nats-server version advertised: 2.11 has its own subject rules. */
  version = NATS_COMPATIBLE_VERSION,
): StreamConfig {
  const name = requested.name ?? '';
  if (!isValidName(name)) {
    throw invalid("stream name is required and can not contain '.', '*', '>'");
  }
  if (Buffer.byteLength(name) > MAX_NAME_LENGTH) {
    throw invalid(`stream name is too long, maximum allowed is ${MAX_NAME_LENGTH}`);
  }
  if (Buffer.byteLength(requested.description ?? '') > MAX_DESCRIPTION_LENGTH) {
    throw invalid(`stream description is too long, maximum allowed is ${MAX_DESCRIPTION_LENGTH}`);
  }
  const metadataLength = Object.entries(requested.metadata ?? {}).reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
    0,
  );
  if (metadataLength > MAX_METADATA_LENGTH) {
    throw invalid(`stream metadata exceeds maximum size of ${MAX_METADATA_LENGTH} bytes`);
  }
  if ((requested.num_replicas ?? 0) > 5) throw invalid('maximum replicas is 5');
  if ((requested.num_replicas ?? 0) < 0)
    throw ApiError.of(jsErrors.JSReplicasCountCannotBeNegative);
  // Subjects are defaulted below, after the mirror and source checks, as nats-server does.
  // A 2.11 request may ask to be refused rather than defaulted (`pedantic`, not stored).
  const { pedantic = false, ...asked } = requested as StreamConfig & { pedantic?: boolean };
  // A limit below -1 is taken as -1, except by a pedantic request (v2.12.1 stream.go:1549-1578).
  for (const field of PEDANTIC_UNLIMITED) {
    if (pedantic && (asked[field] ?? 0) < -1) throw pedanticError(`${field} must be set to -1`);
  }
  const config = streamConfigWithDefaults({ ...asked, subjects: asked.subjects ?? [] });
  if (!requested.subjects?.length) delete config.subjects;
  // v2.12.1 stream.go:1579-1581
  if ((config.max_age ?? 0) < 0) throw invalid('max age can not be negative');
  const askedMaxAge = requested.max_age ?? 0;
  if (
    pedantic &&
    !requested.duplicate_window &&
    !requested.mirror &&
    askedMaxAge !== 0 &&
    askedMaxAge < DEFAULT_DUPLICATE_WINDOW_NANOS
  ) {
    // v2.11.0 stream.go:1346-1349
    throw pedanticError('pedantic mode: duplicate window cannot be bigger than max age');
  }
  const maxAge = config.max_age ?? 0;
  const window = config.duplicate_window ?? 0;
  if (maxAge > 0 && maxAge < MIN_DURATION_NANOS) throw invalid('max age needs to be >= 100ms');
  if (window < 0) throw invalid('duplicates window can not be negative');
  if (maxAge !== 0 && window > maxAge) {
    throw invalid('duplicates window can not be larger then max age');
  }
  if (window > 0 && window < MIN_DURATION_NANOS) {
    throw invalid('duplicates window needs to be >= 100ms');
  }
  if (config.deny_purge && config.allow_rollup_hdrs) {
    throw invalid('roll-ups require the purge permission');
  }
  checkDiscardNewPerSubject(config);
  // Counters are checked on the TTL setting asked for, before markers may turn it on.
  checkCounterAndScheduleToggles(config, pedantic);
  checkDeleteMarkers(config, pedantic);
  checkPersistMode(config);
  checkOrigins(config, lookup, pedantic);
  if (!config.subjects?.length) {
    if (!config.mirror && !config.sources?.length) config.subjects = [config.name];
  } else {
    if (config.mirror) throw ApiError.of(jsErrors.JSMirrorWithSubjectsErr);
    checkSubjects(config, version);
  }
  if (!config.subjects?.length && !config.sources?.length && !config.mirror) {
    throw invalid('stream needs at least one configured subject or be a source/mirror');
  }
  for (const a of config.subjects ?? []) {
    for (const b of config.subjects ?? []) {
      if (a !== b && subjectsCollide(a, b)) throw invalid(`subject "${a}" overlaps with "${b}"`);
    }
  }
  checkRepublish(config, pedantic);
  checkStreamTransform(config);
  return config;
}

/** configUpdateCheck: what an update may not change. */
export function checkStreamUpdate(
  old: StreamConfig,
  requested: StreamConfig,
  lookup: StreamConfigLookup,
  /** The nats-server version advertised: 2.14 lets max_consumers change. */
  version = NATS_COMPATIBLE_VERSION,
): StreamConfig {
  const config = checkStreamConfig(requested, lookup, version);
  const refuse = (what: string) => invalid(`stream configuration update ${what}`);
  if (config.name !== old.name) throw invalid('stream configuration name must match original');
  // Until 2.14 (ce880c8, v2.14.0 configUpdateCheck).
  if (!isAtLeast(version, 2, 14) && config.max_consumers !== old.max_consumers) {
    throw refuse('can not change MaxConsumers');
  }
  if (config.storage !== old.storage) throw refuse('can not change storage type');
  // 2.10 lets limits and interest retention change into each other (stream.go:1571 at v2.10.0).
  if (
    config.retention !== old.retention &&
    (config.retention === 'workqueue' || old.retention === 'workqueue')
  ) {
    throw refuse('can not change retention policy to/from workqueue');
  }
  if (old.template_owner)
    throw invalid('stream configuration update not allowed on template owned stream');
  if (!config.sealed && old.sealed) throw refuse('can not unseal a sealed stream');
  if (!config.deny_delete && old.deny_delete) throw refuse('can not cancel deny message deletes');
  if (!config.deny_purge && old.deny_purge) throw refuse('can not cancel deny purge');
  // Removing the mirror promotes the stream to a normal one (v2.12.0 stream.go:2125-2129).
  if (config.mirror && JSON.stringify(config.mirror) !== JSON.stringify(old.mirror)) {
    throw ApiError.of(jsErrors.JSStreamMirrorNotUpdatableErr);
  }
  if (JSON.stringify(config.republish) !== JSON.stringify(old.republish)) {
    throw refuse('can not change RePublish');
  }
  // TTLs may be turned on later, as delete markers do (v2.12.0 stream.go:2142-2145).
  if (old.allow_msg_ttl && !config.allow_msg_ttl) {
    throw invalid('message TTL status can not be disabled');
  }
  checkCounterAndScheduleUpdate(config, old);
  // v2.12.1 stream.go:2157
  if (config.persist_mode !== old.persist_mode) throw refuse('can not change persist mode');
  if (config.sealed) {
    config.max_age = 0;
    config.discard = 'new';
    config.deny_delete = true;
    config.deny_purge = true;
    config.allow_rollup_hdrs = false;
  }
  if (config.num_replicas! > 1) throw ApiError.of(jsErrors.JSStreamReplicasNotSupportedErr);
  return withRequiredApiLevel(config);
}

function checkDiscardNewPerSubject(config: StreamConfig): void {
  if (!config.discard_new_per_subject) return;
  if (config.discard !== 'new') {
    throw invalid('discard new per subject requires discard new policy to be set');
  }
  if ((config.max_msgs_per_subject ?? -1) <= 0) {
    throw invalid('discard new per subject requires max msgs per subject > 0');
  }
}

/**
 * The stream's own subjects: valid, not repeated, and clear of the server's API. Until 2.11
 * `$JS.API.>` is refused outright (v2.10.0 stream.go:1470-1488); 2.11 allows what overlaps
 * the JetStream or system API, or captures everything, only without acks (no_ack), and
 * checks validity first (v2.11.0 stream.go:1625-1656).
 */
function checkSubjects(config: StreamConfig, version: string): void {
  const seen = new Set<string>();
  const since211 = isAtLeast(version, 2, 11);
  for (const subject of config.subjects ?? []) {
    if (since211 && !isValidSubscribeSubject(subject)) throw invalid('invalid subject');
    if (seen.has(subject)) throw invalid('duplicate subjects detected');
    if (!since211) {
      if (isSubsetMatch(subject, '$JS.API.>')) throw invalid('subjects overlap with jetstream api');
      if (!isValidSubscribeSubject(subject)) throw invalid('invalid subject');
    } else if (!config.no_ack) {
      if (subject === '>') throw invalid('capturing all subjects requires no-ack to be true');
      const jetstreamApi =
        (isSubsetMatch(subject, '$JS.>') || isSubsetMatch(subject, '$JSC.>')) &&
        !isSubsetMatch(subject, '$JS.EVENT.>');
      if (jetstreamApi) {
        throw invalid('subjects that overlap with jetstream api require no-ack to be true');
      }
      if (isSubsetMatch(subject, '$SYS.>') && !isSubsetMatch(subject, '$SYS.ACCOUNT.>')) {
        throw invalid('subjects that overlap with system api require no-ack to be true');
      }
    } else if (subject === '>' && config.num_replicas !== 1) {
      throw invalid('capturing all subjects requires replicas of 1');
    }
    seen.add(subject);
  }
}

/**
 * Subject delete markers (v2.12.0 stream.go:1644-1662). A marker is a message with a TTL that
 * rolls up its subject, so markers need message TTLs and roll-ups: turned on unless `pedantic`,
 * which refuses instead (2.11.0 refused outright).
 */
function checkDeleteMarkers(config: StreamConfig, pedantic: boolean): void {
  const markerTtl = config.subject_delete_marker_ttl ?? 0;
  if (markerTtl < 0) throw invalid('subject delete marker TTL must not be negative');
  if (markerTtl === 0) return;
  if (markerTtl < NANOS_PER_SECOND) {
    throw invalid('subject delete marker TTL must be at least 1 second');
  }
  if (!config.allow_msg_ttl) {
    if (pedantic) throw invalid('subject delete marker cannot be set if message TTLs are disabled');
    config.allow_msg_ttl = true;
  }
  if (!config.allow_rollup_hdrs) {
    if (pedantic) throw invalid('subject delete marker cannot be set if roll-ups are disabled');
    config.allow_rollup_hdrs = true;
    config.deny_purge = false;
  }
}

/** The stream's own subject transform (v2.11.0 stream.go:1750-1760). */
function checkStreamTransform(config: StreamConfig): void {
  const transform = config.subject_transform;
  if (!transform) return;
  if (transform.src && !isValidSubscribeSubject(transform.src)) {
    throw ApiError.of(jsErrors.JSStreamTransformInvalidSource, {
      err: `invalid subject ${transform.src}`,
    });
  }
  const problem = transformProblem(transform.src, transform.dest);
  if (problem) throw ApiError.of(jsErrors.JSStreamTransformInvalidDestination, { err: problem });
}

/**
 * A mirror's or source's `subject_transforms` (v2.11.0 stream.go:1450-1462 and 1537-1556):
 * not together with filter_subject, each source a valid subject and each mapping valid, no
 * two sources overlapping.
 */
function checkOriginTransforms(origin: StreamSource, kind: 'mirror' | 'source'): void {
  const transforms = origin.subject_transforms ?? [];
  const errors =
    kind === 'mirror'
      ? {
          multiple: jsErrors.JSMirrorMultipleFiltersNotAllowed,
          filter: jsErrors.JSMirrorInvalidSubjectFilter,
          destination: jsErrors.JSMirrorInvalidTransformDestination,
          overlap: jsErrors.JSMirrorOverlappingSubjectFilters,
        }
      : {
          multiple: jsErrors.JSSourceMultipleFiltersNotAllowed,
          filter: jsErrors.JSSourceInvalidSubjectFilter,
          destination: jsErrors.JSSourceInvalidTransformDestination,
          overlap: jsErrors.JSSourceOverlappingSubjectFilters,
        };
  if (origin.filter_subject && transforms.length > 0) throw ApiError.of(errors.multiple);
  for (const { src, dest } of transforms) {
    if (src && !isValidSubscribeSubject(src)) {
      throw ApiError.of(errors.filter, { err: `invalid subject ${src}` });
    }
    const problem = transformProblem(src, dest);
    if (problem) throw ApiError.of(errors.destination, { err: problem });
  }
  // A mirror refuses any two that collide, a source one contained in another.
  const overlap = kind === 'mirror' ? subjectsCollide : isSubsetMatch;
  transforms.forEach((outer, i) => {
    transforms.forEach((inner, j) => {
      if (i !== j && overlap(outer.src || '>', inner.src || '>')) throw ApiError.of(errors.overlap);
    });
  });
}

/**
 * Two sources are the same when they name the same stream (and external API) with the same
 * filters and mappings, empty ones read as `>` (v2.11.0 stream.go:815 composeIName).
 */
function sourceKey(source: StreamSource): string {
  const transforms = source.subject_transforms?.length
    ? source.subject_transforms
    : [{ src: source.filter_subject ?? '', dest: '' }];
  const filters = transforms.map((t) => t.src || '>').join('\f');
  const destinations = transforms.map((t) => t.dest || '>').join('\f');
  return [source.name, source.external?.api ?? '', filters, destinations].join(' ');
}

function isValidName(name: string): boolean {
  return name !== '' && !invalidName.test(name);
}

/** Mirror and source rules, including cycles through streams of this account. */
function checkOrigins(config: StreamConfig, lookup: StreamConfigLookup, pedantic: boolean): void {
  const overlaps = (filter: string | undefined, subjects: string[] | undefined) =>
    !filter || !subjects?.length || subjects.some((s) => subjectsCollide(s, filter));
  const checkOrigin = (origin: StreamSource, kind: 'mirror' | 'source') => {
    // Not looked up: it is another JetStream's, which may name a stream as this one does
    // (v2.11.0 stream.go:1462-1463, :1522-1523).
    if (origin.external) return;
    const other = lookup(origin.name);
    if (!other) return;
    const size = config.max_msg_size ?? -1;
    const otherSize = other.max_msg_size ?? -1;
    if (size > 0 && otherSize > 0 && size < otherSize) {
      throw ApiError.of(
        kind === 'mirror'
          ? jsErrors.JSMirrorMaxMessageSizeTooBigErr
          : jsErrors.JSSourceMaxMessageSizeTooBigErr,
      );
    }
    if (!overlaps(origin.filter_subject, other.subjects)) {
      throw invalid(
        `${kind} '${origin.name}' filter subject '${origin.filter_subject}' does not overlap with any origin stream subject`,
      );
    }
  };
  if (config.mirror) {
    if (config.first_seq) throw ApiError.of(jsErrors.JSMirrorWithFirstSeqErr);
    if (config.subjects?.length) throw ApiError.of(jsErrors.JSMirrorWithSubjectsErr);
    if (config.sources?.length) throw ApiError.of(jsErrors.JSMirrorWithSourcesErr);
    // v2.12.1 stream.go:1727: a mirror copies its origin's batches, it takes none of its own.
    if (config.allow_atomic) throw ApiError.of(jsErrors.JSMirrorWithAtomicPublishErr);
    if (config.mirror.filter_subject && config.mirror.subject_transforms?.length) {
      throw ApiError.of(jsErrors.JSMirrorMultipleFiltersNotAllowed);
    }
    if ((config.subject_delete_marker_ttl ?? 0) > 0) {
      // Markers would take sequences of their own and part the mirror from its origin.
      throw invalid('subject delete markers forbidden on mirrors');
    }
    checkOriginTransforms(config.mirror, 'mirror');
    if (config.mirror.external) {
      // An external origin's name and direct gets are not checked (v2.11.0 stream.go:1464).
      config.mirror_direct ??= false;
    } else {
      if (!isValidName(config.mirror.name)) throw ApiError.of(jsErrors.JSMirrorInvalidStreamName);
      checkOrigin(config.mirror, 'mirror');
      const origin = lookup(config.mirror.name);
      if (
        pedantic &&
        origin &&
        (config.mirror_direct ?? false) !== (origin.allow_direct ?? false)
      ) {
        // v2.11.0 stream.go:1481-1483
        throw pedanticError('origin stream has direct get set, mirror has it disabled');
      }
      config.mirror_direct = origin?.allow_direct ?? false;
    }
  }
  const sourceKeys = new Set<string>();
  for (const source of config.sources ?? []) {
    if (!isValidName(source.name)) throw ApiError.of(jsErrors.JSSourceInvalidStreamName);
    const key = sourceKey(source);
    if (sourceKeys.has(key)) throw ApiError.of(jsErrors.JSSourceDuplicateDetected);
    sourceKeys.add(key);
    checkOrigin(source, 'source');
    checkOriginTransforms(source, 'source');
  }
  checkExternalPrefixes(config, lookup);
  const visited = new Set<string>();
  const toVisit: StreamConfig[] = [config];
  while (toVisit.length > 0) {
    const next = toVisit.shift()!;
    visited.add(next.name);
    const origins = [...(next.sources ?? []), ...(next.mirror ? [next.mirror] : [])];
    for (const origin of origins) {
      if (origin.external) continue;
      if (visited.has(origin.name)) throw invalid('detected cycle');
      const other = lookup(origin.name);
      if (other) toVisit.push(other);
    }
  }
}

/**
 * The prefixes of external origins (v2.11.0 stream.go:1570-1590, as 2.9.10): each deliver
 * prefix a subject without wildcards that puts no local origin's subject under itself, then
 * each API prefix a subject without wildcards apart from `$JS.API`.
 */
function checkExternalPrefixes(config: StreamConfig, lookup: StreamConfigLookup): void {
  const origins = [...(config.mirror ? [config.mirror] : []), ...(config.sources ?? [])];
  for (const origin of origins) {
    // Echoed as nats-server writes it: `deliver` has no omitempty (stream.go:262).
    if (origin.external)
      origin.external = { ...origin.external, deliver: origin.external.deliver ?? '' };
  }
  const localSubjects = origins
    .filter((origin) => !origin.external)
    .flatMap((origin) => lookup(origin.name)?.subjects ?? []);
  for (const deliver of origins.map((origin) => origin.external?.deliver)) {
    if (!deliver) continue;
    if (!isValidPublishSubject(deliver)) {
      throw ApiError.of(jsErrors.JSStreamInvalidExternalDeliverySubjErrF, { prefix: deliver });
    }
    const under = localSubjects.find((subject) =>
      subjectsCollide(subject, `${deliver}.${subject}`),
    );
    if (under !== undefined) {
      throw ApiError.of(jsErrors.JSStreamExternalDelPrefixOverlapsErrF, {
        prefix: deliver,
        subject: under,
      });
    }
  }
  for (const api of origins.map((origin) => origin.external?.api)) {
    if (!api) continue;
    if (!isValidPublishSubject(api)) {
      throw invalid(
        `stream external api prefix ${JSON.stringify(api)} must be a valid subject without wildcards`,
      );
    }
    if (subjectsCollide(api, '$JS.API')) {
      throw ApiError.of(jsErrors.JSStreamExternalApiOverlapErrF, {
        prefix: api,
        subject: '$JS.API',
      });
    }
  }
}

function checkRepublish(config: StreamConfig, pedantic: boolean): void {
  const republish = config.republish;
  if (!republish) return;
  if (pedantic && !republish.src) {
    // v2.11.0 stream.go:1715-1718
    throw pedanticError('pedantic mode: republish source can not be empty');
  }
  const source = republish.src || '>';
  config.republish = { ...republish, src: source };
  if ((config.subjects ?? []).some((s) => subjectsCollide(republish.dest, s))) {
    throw invalid('stream configuration for republish destination forms a cycle');
  }
  // v2.10.0 stream.go:1526: the mapping itself must be valid.
  if (transformProblem(source, republish.dest)) {
    throw invalid(
      `stream configuration for republish with transform from '${source}' to '${republish.dest}' not valid`,
    );
  }
}

/** The limits a stream's store enforces, from its config. */
export function storeLimitsOf(
  config: StreamConfig,
  version = NATS_COMPATIBLE_VERSION,
): StoreLimits {
  return {
    maxMsgs: config.max_msgs ?? -1,
    maxBytes: config.max_bytes ?? -1,
    maxAge: BigInt(config.max_age ?? 0),
    maxMsgSize: config.max_msg_size ?? -1,
    maxMsgsPerSubject: config.max_msgs_per_subject ?? -1,
    discard: config.discard ?? 'old',
    discardNewPerSubject: config.discard_new_per_subject ?? false,
    allowMsgTtl: config.allow_msg_ttl ?? false,
    // A memory stream accepts the setting and ignores it, as nats-server's memory store does.
    compress: config.compression === 's2' && config.storage !== 'memory',
    rollupPastSubjectLimit: isAtLeast(version, 2, 14),
  };
}
