/**
 * The JetStream API level by advertised version (nats-server's JSApiLevel: 1 at v2.11.0, 2 at
 * v2.12.1, 4 at v2.14.2, server/jetstream_versioning.go), where each release reports it: the
 * API statistics from 2.11 (JetStreamAPIStats.Level), INFO's `api_lvl` from 2.12 (server.go:137
 * at v2.12.1). The version advertised now decides what a client sees in INFO.
 */
import { describe, expect, it } from 'vitest';
import { apiLevelOf, apiStatsLevel, infoApiLevel } from '../src/api-level.js';
import { silentLogger, startServer } from '../src/index.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import { RawClient } from './raw-client.js';

describe('the API level of a version', () => {
  it.each([
    ['2.9.10', 0, {}, {}],
    ['2.10.22', 0, {}, {}],
    ['2.11.0', 1, { level: 1 }, {}],
    ['2.12.1', 2, { level: 2 }, { api_lvl: 2 }],
    ['2.14.2', 4, { level: 4 }, { api_lvl: 4 }],
  ])('%s: level %i, API statistics %o, INFO %o', (version, level, stats, info) => {
    expect(apiLevelOf(version)).toBe(level);
    expect(apiStatsLevel(version)).toEqual(stats);
    expect(infoApiLevel(version)).toEqual(info);
  });

  it("INFO says api_lvl as the advertised version's release does", async () => {
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    try {
      const client = await RawClient.connectAndGreet(server.port);
      const info = client.info();
      client.close();
      expect(info.version).toBe(NATS_COMPATIBLE_VERSION);
      const expected = infoApiLevel(NATS_COMPATIBLE_VERSION).api_lvl;
      expect(info.api_lvl).toBe(expected);
    } finally {
      await server.close();
    }
  });
});
