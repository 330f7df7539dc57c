/**
 * A stream's configuration as nats-server 2.9.10 accepts it (stream.go checkStreamCfg and
 * configUpdateCheck): defaults applied, every rule checked in nats-server's order, each broken
 * rule thrown as the catalog error a client of nats-server would get.
 */
import {
  ApiError,
  jsErrors,
  type StreamConfig,
  type StreamSource,
  streamConfigWithDefaults,
} from '@slipstream/jsapi';
import { isSubsetMatch, isValidSubscribeSubject, subjectsCollide } from '@slipstream/protocol';
import { isGoEmpty } from './go-json.js';

/** Streams a config may refer to (mirrors and sources). */
export type StreamConfigLookup = (name: string) => StreamConfig | undefined;

const MAX_NAME_LENGTH = 255;
const MAX_DESCRIPTION_LENGTH = 4 * 1024;
const MIN_DURATION_NANOS = 100_000_000;
const invalidName = /[ \t\r\n\f.*>]/;

const invalid = (err: string) => ApiError.of(jsErrors.JSStreamInvalidConfigF, { err });

/**
 * The fields a 2.9.10 stream config has, in the order nats-server writes them, each with
 * whether Go leaves it out when empty (`omitempty`). Fields of newer servers are not kept: a
 * 2.9.10 server drops them, and the official clients only send them to servers that
 * advertise the version that has them.
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
  ['republish', 'omitempty'],
  ['allow_direct', 'always'],
  ['mirror_direct', 'always'],
  ['discard_new_per_subject', 'omitempty'],
  ['sealed', 'always'],
  ['deny_delete', 'always'],
  ['deny_purge', 'always'],
  ['allow_rollup_hdrs', 'always'],
];

/** The config as nats-server 2.9.10 writes it: its fields in its order, empty ones omitted. */
export function wireStreamConfig(config: StreamConfig): StreamConfig {
  const out: Record<string, unknown> = {};
  for (const [field, empty] of FIELDS) {
    const value = config[field];
    if (value === undefined || (empty === 'omitempty' && isGoEmpty(value))) continue;
    out[field] = field === 'placement' ? wirePlacement(value as object) : value;
  }
  return out as StreamConfig;
}

function wirePlacement(placement: { cluster?: string; tags?: string[] }) {
  return {
    ...(placement.cluster ? { cluster: placement.cluster } : {}),
    ...(placement.tags?.length ? { tags: placement.tags } : {}),
  };
}

/** True when two checked configs are the same (a repeated create is then not an error). */
export function sameStreamConfig(a: StreamConfig, b: StreamConfig): boolean {
  return JSON.stringify(wireStreamConfig(a)) === JSON.stringify(wireStreamConfig(b));
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
  return config;
}

/** checkStreamCfg: defaults and the rules every create and update must pass. */
export function checkStreamConfig(
  requested: StreamConfig,
  lookup: StreamConfigLookup,
): StreamConfig {
  const name = requested.name ?? '';
  if (name === '' || invalidName.test(name)) {
    throw invalid("stream name is required and can not contain '.', '*', '>'");
  }
  if (Buffer.byteLength(name) > MAX_NAME_LENGTH) {
    throw invalid(`stream name is too long, maximum allowed is ${MAX_NAME_LENGTH}`);
  }
  if (Buffer.byteLength(requested.description ?? '') > MAX_DESCRIPTION_LENGTH) {
    throw invalid(`stream description is too long, maximum allowed is ${MAX_DESCRIPTION_LENGTH}`);
  }
  if ((requested.num_replicas ?? 0) > 5) throw invalid('maximum replicas is 5');
  if ((requested.num_replicas ?? 0) < 0)
    throw ApiError.of(jsErrors.JSReplicasCountCannotBeNegative);
  // Subjects are defaulted below, after the mirror and source checks, as nats-server does.
  const config = streamConfigWithDefaults({ ...requested, subjects: requested.subjects ?? [] });
  if (!requested.subjects?.length) delete config.subjects;
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
  checkOrigins(config, lookup);
  if (!config.subjects?.length) {
    if (!config.mirror && !config.sources?.length) config.subjects = [config.name];
  } else {
    if (config.mirror) throw ApiError.of(jsErrors.JSMirrorWithSubjectsErr);
    const seen = new Set<string>();
    for (const subject of config.subjects) {
      if (seen.has(subject)) throw invalid('duplicate subjects detected');
      if (isSubsetMatch(subject, '$JS.API.>')) throw invalid('subjects overlap with jetstream api');
      if (!isValidSubscribeSubject(subject)) throw invalid('invalid subject');
      seen.add(subject);
    }
  }
  if (!config.subjects?.length && !config.sources?.length && !config.mirror) {
    throw invalid('stream needs at least one configured subject or be a source/mirror');
  }
  for (const a of config.subjects ?? []) {
    for (const b of config.subjects ?? []) {
      if (a !== b && subjectsCollide(a, b)) throw invalid(`subject "${a}" overlaps with "${b}"`);
    }
  }
  checkRepublish(config);
  return config;
}

/** configUpdateCheck: what an update may not change. */
export function checkStreamUpdate(
  old: StreamConfig,
  requested: StreamConfig,
  lookup: StreamConfigLookup,
): StreamConfig {
  const config = checkStreamConfig(requested, lookup);
  const refuse = (what: string) => invalid(`stream configuration update ${what}`);
  if (config.name !== old.name) throw invalid('stream configuration name must match original');
  if (config.max_consumers !== old.max_consumers) throw refuse('can not change MaxConsumers');
  if (config.storage !== old.storage) throw refuse('can not change storage type');
  if (config.retention !== old.retention) throw refuse('can not change retention policy');
  if (old.template_owner)
    throw invalid('stream configuration update not allowed on template owned stream');
  if (!config.sealed && old.sealed) throw refuse('can not unseal a sealed stream');
  if (!config.deny_delete && old.deny_delete) throw refuse('can not cancel deny message deletes');
  if (!config.deny_purge && old.deny_purge) throw refuse('can not cancel deny purge');
  if (JSON.stringify(config.mirror) !== JSON.stringify(old.mirror)) {
    throw ApiError.of(jsErrors.JSStreamMirrorNotUpdatableErr);
  }
  if (JSON.stringify(config.republish) !== JSON.stringify(old.republish)) {
    throw refuse('can not change RePublish');
  }
  if (config.sealed) {
    config.max_age = 0;
    config.discard = 'new';
    config.deny_delete = true;
    config.deny_purge = true;
    config.allow_rollup_hdrs = false;
  }
  if (config.num_replicas! > 1) throw ApiError.of(jsErrors.JSStreamReplicasNotSupportedErr);
  return config;
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

/** Mirror and source rules, including cycles through streams of this account. */
function checkOrigins(config: StreamConfig, lookup: StreamConfigLookup): void {
  const overlaps = (filter: string | undefined, subjects: string[] | undefined) =>
    !filter || !subjects?.length || subjects.some((s) => subjectsCollide(s, filter));
  const checkOrigin = (origin: StreamSource, kind: 'mirror' | 'source') => {
    if (origin.external) {
      throw invalid(
        `${kind} '${origin.name}' is in another account or domain (external), which this server does not support`,
      );
    }
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
    if (config.subjects?.length) throw ApiError.of(jsErrors.JSMirrorWithSubjectsErr);
    if (config.sources?.length) throw ApiError.of(jsErrors.JSMirrorWithSourcesErr);
    checkOrigin(config.mirror, 'mirror');
    config.mirror_direct = lookup(config.mirror.name)?.allow_direct ?? false;
  }
  for (const source of config.sources ?? []) checkOrigin(source, 'source');
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

function checkRepublish(config: StreamConfig): void {
  const republish = config.republish;
  if (!republish) return;
  const source = republish.src || '>';
  config.republish = { ...republish, src: source };
  const subjects = config.subjects ?? [];
  if (!subjects.some((s) => subjectsCollide(source, s))) {
    throw invalid('stream configuration for republish source is not valid subset of subjects');
  }
  if (subjects.some((s) => subjectsCollide(republish.dest, s))) {
    throw invalid('stream configuration for republish destination forms a cycle');
  }
  if (!isValidSubscribeSubject(republish.dest) || !isValidSubscribeSubject(source)) {
    throw invalid('stream configuration for republish not valid');
  }
}
