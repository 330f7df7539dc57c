/**
 * The JetStream API level nats-server writes into stream metadata (server/jetstream_versioning.go
 * at v2.11.0, v2.12.1, v2.14.2): the stored config says the level its features need
 * (`_nats.req.level`), and every config a response shows also says the server's version and
 * level (`_nats.ver`, `_nats.level`), which are never stored. The server's level follows the
 * version advertised (JSApiLevel: 1 at 2.11, 2 at 2.12, 4 at 2.14); only a server that
 * advertises 2.11 or later does this; before, metadata is the user's alone.
 */
import type { StreamConfig } from '@slipstream/jsapi';
import { apiLevelOf, isAtLeast } from '../../api-level.js';
import { NATS_COMPATIBLE_VERSION } from '../../version.js';
import { headerValue } from '../shared/header-block.js';

const REQUIRED_LEVEL = '_nats.req.level';
const SERVER_VERSION = '_nats.ver';
const SERVER_LEVEL = '_nats.level';

export { isAtLeast };

const hasApiLevels = (version: string) => isAtLeast(version, 2, 11);

/**
 * The level a stream's features need (setStaticStreamMetadata, v2.14.2
 * jetstream_versioning.go:46-90): per-message TTLs and delete markers 1; counters, atomic
 * batches, schedules and the async persist mode 2; fast batch publishing 4.
 */
export function requiredStreamLevel(config: StreamConfig): number {
  if (config.allow_batched) return 4;
  if (
    config.allow_msg_counter ||
    config.allow_atomic ||
    config.allow_msg_schedules ||
    config.persist_mode === 'async'
  ) {
    return 2;
  }
  return config.allow_msg_ttl || (config.subject_delete_marker_ttl ?? 0) > 0 ? 1 : 0;
}

/** The config to store: the level it requires set, the server's own keys dropped. */
export function withRequiredApiLevel(
  config: StreamConfig,
  version = NATS_COMPATIBLE_VERSION,
): StreamConfig {
  if (!hasApiLevels(version)) return config;
  const metadata = { ...config.metadata };
  delete metadata[SERVER_VERSION];
  delete metadata[SERVER_LEVEL];
  metadata[REQUIRED_LEVEL] = String(requiredStreamLevel(config));
  return { ...config, metadata };
}

/** The config as a response shows it: with the server's version and API level. */
export function withServerApiLevel(
  config: StreamConfig,
  version = NATS_COMPATIBLE_VERSION,
): StreamConfig {
  if (!hasApiLevels(version)) return config;
  return {
    ...config,
    metadata: {
      ...config.metadata,
      [SERVER_VERSION]: version,
      [SERVER_LEVEL]: String(apiLevelOf(version)),
    },
  };
}

/**
 * The config without the keys the server writes, for telling whether two configs are the
 * same: a stream stored before 2.11 was advertised lacks `_nats.req.level` (nats-server's
 * copyStreamMetadata carries it over before comparing, jetstream_versioning.go:66-72).
 */
export function withoutServerMetadata(config: StreamConfig): StreamConfig {
  if (!config.metadata) return config;
  const metadata = { ...config.metadata };
  for (const key of [REQUIRED_LEVEL, SERVER_VERSION, SERVER_LEVEL]) delete metadata[key];
  const { metadata: _ignored, ...rest } = config;
  return Object.keys(metadata).length > 0 ? { ...rest, metadata } : rest;
}

/** The header a request names the API level it needs with (2.12). */
export const REQUIRED_API_LEVEL_HEADER = 'Nats-Required-Api-Level';

/**
 * Whether a request must be refused for the API level its `Nats-Required-Api-Level` header
 * asks: one above the server's, or not a number (errorOnRequiredApiLevel, v2.12.1
 * jetstream_versioning.go:228-236). The API answers JSRequiredApiLevelErr, a direct get or pull
 * request `412 Required Api Level`.
 */
export function requiredApiLevelRefused(
  headers: Uint8Array | undefined,
  version = NATS_COMPATIBLE_VERSION,
): boolean {
  const asked = headers && headerValue(headers, REQUIRED_API_LEVEL_HEADER);
  if (!asked) return false;
  // Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
  if (!/^[+-]?\d+$/.test(asked)) return true;
  return Number(asked) > apiLevelOf(version);
}
