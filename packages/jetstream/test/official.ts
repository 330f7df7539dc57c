import {
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
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

/** The official client's connection with its JetStream client and manager. */
export interface OfficialJetStream {
  nc: OfficialConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/**
 * The official connection of `useOfficialConnection` with its JetStream client and manager,
 * handed to `opened` before the block's tests.
 */
export function useOfficialJetStream(
  server: ReturnType<typeof useJetStreamServer>,
  opened: (clients: OfficialJetStream) => void,
): void {
  const official = useOfficialConnection(server);
  beforeAll(async () => {
    const { nc } = official;
    opened({ nc, js: jetstream(nc), jsm: await jetstreamManager(nc) });
  });
}
