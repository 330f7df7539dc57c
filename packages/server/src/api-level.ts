/**
 * The JetStream API level (nats-server's JSApiLevel, server/jetstream_versioning.go) of the
 * nats-server version we advertise: 1 at 2.11, 2 at 2.12, 4 at 2.14 (none before 2.11). Streams
 * record the level they need with it, requests may require one, and the API statistics report it.
 */
import { NATS_COMPATIBLE_VERSION } from './version.js';

/** True when `version` (major.minor.patch) is `major.minor` or later. */
export function isAtLeast(version: string, major: number, minor: number): boolean {
  const [actualMajor = 0, actualMinor = 0] = version.split('.').map(Number);
  return actualMajor > major || (actualMajor === major && actualMinor >= minor);
}

/** The API level of a server advertising `version`. */
export function apiLevelOf(version: string): number {
  if (isAtLeast(version, 2, 14)) return 4;
  if (isAtLeast(version, 2, 12)) return 2;
  return isAtLeast(version, 2, 11) ? 1 : 0;
}

/**
 * The `level` that leads the JetStream API statistics (account info, /jsz, /varz) from 2.11 on
 * (JetStreamAPIStats at v2.11.0 jetstream.go:94-99); nothing before.
 */
export function apiStatsLevel(version = NATS_COMPATIBLE_VERSION): { level?: number } {
  return isAtLeast(version, 2, 11) ? { level: apiLevelOf(version) } : {};
}

/**
 * INFO's `api_lvl` from 2.12 on (ServerInfo.JSApiLevel, v2.12.1 server.go:137, 766): the API
 * level, whether JetStream is on or not; nothing before.
 */
export function infoApiLevel(version = NATS_COMPATIBLE_VERSION): { api_lvl?: number } {
  return isAtLeast(version, 2, 12) ? { api_lvl: apiLevelOf(version) } : {};
}
