import type { NatsConnection } from '@slipstream/client';
import { JetStreamClientImpl } from './jetstream-client.js';
import type { JetStreamClient, JetStreamManager } from './jetstream-types.js';
import { JetStreamManagerImpl } from './manager.js';
import type { JetStreamManagerOptions, JetStreamOptions } from './options.js';

/** A JetStream client on a connection (no round trip: nothing is checked until first use). */
export function jetstream(nc: NatsConnection, options: JetStreamOptions = {}): JetStreamClient {
  return new JetStreamClientImpl(nc, options, (checkAPI) =>
    jetstreamManager(nc, { ...options, checkAPI }),
  );
}

/**
 * A JetStream manager on a connection. Like nats.js it first asks for the account info, so a
 * server or account without JetStream fails here (JetStreamNotEnabled) rather than at first
 * use; `checkAPI: false` skips that round trip.
 */
export async function jetstreamManager(
  nc: NatsConnection,
  options: JetStreamManagerOptions & { checkAPI?: boolean } = {},
): Promise<JetStreamManager> {
  const { checkAPI, ...rest } = options;
  const manager = new JetStreamManagerImpl(nc, rest, () => jetstream(nc, rest));
  if (checkAPI !== false) await manager.getAccountInfo();
  return manager;
}
