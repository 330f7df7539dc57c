/**
 * The JetStream API level in consumer metadata, as nats-server writes it from 2.11 on
 * (setStaticConsumerMetadata / setDynamicConsumerInfoMetadata, server/jetstream_versioning.go at
 * v2.11.0 and v2.14.2): the stored config says the level its features need (`_nats.req.level`:
 * 1 with pause_until or a priority policy, 4 with ack policy flow_control), and the config of a
 * create, info or reset answer also says the server's version and level (`_nats.ver`,
 * `_nats.level`), which are never stored. A consumer list shows the stored config only.
 */
import type { ConsumerConfig, ConsumerInfo } from '@slipstream/jsapi';
import { apiLevelOf, isAtLeast } from '../../api-level.js';
import { NATS_COMPATIBLE_VERSION } from '../../version.js';
import { pauseDeadline } from './consumer-pause.js';

const REQUIRED_LEVEL = '_nats.req.level';
const SERVER_VERSION = '_nats.ver';
const SERVER_LEVEL = '_nats.level';

/** The level a consumer's features need. */
export function requiredConsumerLevel(config: ConsumerConfig): number {
  if (config.ack_policy === 'flow_control') return 4;
  const paused = pauseDeadline(config.pause_until) !== 0n;
  const priority =
    (config.priority_policy ?? 'none') !== 'none' ||
    (config.priority_timeout ?? 0) !== 0 ||
    (config.priority_groups?.length ?? 0) > 0;
  return paused || priority ? 1 : 0;
}

/** The config to store: the level it requires set, the server's own keys dropped. */
export function withRequiredConsumerLevel(
  config: ConsumerConfig,
  version = NATS_COMPATIBLE_VERSION,
): ConsumerConfig {
  if (!isAtLeast(version, 2, 11)) return config;
  const metadata = { ...config.metadata };
  delete metadata[SERVER_VERSION];
  delete metadata[SERVER_LEVEL];
  metadata[REQUIRED_LEVEL] = String(requiredConsumerLevel(config));
  return { ...config, metadata };
}

/** The info as a create, info or reset answer shows it: its config with the server's level. */
export function withServerConsumerLevel<I extends ConsumerInfo>(
  info: I,
  version = NATS_COMPATIBLE_VERSION,
): I {
  if (!isAtLeast(version, 2, 11)) return info;
  const metadata = {
    ...info.config.metadata,
    [SERVER_VERSION]: version,
    [SERVER_LEVEL]: String(apiLevelOf(version)),
  };
  return { ...info, config: { ...info.config, metadata } };
}

/** The metadata without the keys the server writes, for telling two configs apart. */
export function withoutServerKeys(
  metadata: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (!metadata) return metadata;
  const kept = { ...metadata };
  for (const key of [REQUIRED_LEVEL, SERVER_VERSION, SERVER_LEVEL]) delete kept[key];
  return Object.keys(kept).length > 0 ? kept : undefined;
}
