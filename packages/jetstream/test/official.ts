import { connect as officialConnect } from '@nats-io/transport-node';
import { afterAll, beforeAll } from 'vitest';
import type { useJetStreamServer } from './servers.js';

export type OfficialConnection = Awaited<ReturnType<typeof officialConnect>>;

/**
 * A connection of the official client (@nats-io/transport-node) to the block's server, opened
 * before its tests and closed after them (read `official.nc` inside tests).
 */
export function useOfficialConnection(server: ReturnType<typeof useJetStreamServer>) {
  const official = {} as { nc: OfficialConnection };
  beforeAll(async () => {
    official.nc = await officialConnect({ servers: server.url() });
  });
  afterAll(() => official.nc?.close());
  return official;
}
