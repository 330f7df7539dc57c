/**
 * The JetStream API level nats-server 2.11 writes into stream metadata
 * (server/jetstream_versioning.go, v2.11.0): the stored config says the level it needs
 * (`_nats.req.level`: 1 with per-message TTLs, else 0), and every config a response shows
 * also says the server's version and level (`_nats.ver`, `_nats.level`), which are never
 * stored. Only a server that advertises 2.11 or later does this; before, metadata is the
 * user's alone.
 */
import type { StreamConfig } from '@slipstream/jsapi';
import { NATS_COMPATIBLE_VERSION } from '../../version.js';

const API_LEVEL = 1;
const REQUIRED_LEVEL = '_nats.req.level';
const SERVER_VERSION = '_nats.ver';
const SERVER_LEVEL = '_nats.level';

/** True when `version` (major.minor.patch) is `major.minor` or later. */
export function isAtLeast(version: string, major: number, minor: number): boolean {
  const [actualMajor = 0, actualMinor = 0] = version.split('.').map(Number);
  return actualMajor > major || (actualMajor === major && actualMinor >= minor);
}

const hasApiLevels = (version: string) => isAtLeast(version, 2, 11);

/** The config to store: the level it requires set, the server's own keys dropped. */
export function withRequiredApiLevel(
  config: StreamConfig,
  version = NATS_COMPATIBLE_VERSION,
): StreamConfig {
  if (!hasApiLevels(version)) return config;
  const metadata = { ...config.metadata };
  delete metadata[SERVER_VERSION];
  delete metadata[SERVER_LEVEL];
  const needsTtls = config.allow_msg_ttl || (config.subject_delete_marker_ttl ?? 0) > 0;
  metadata[REQUIRED_LEVEL] = needsTtls ? '1' : '0';
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
      [SERVER_LEVEL]: String(API_LEVEL),
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
