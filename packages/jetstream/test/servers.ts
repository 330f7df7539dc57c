import { connect, type NatsConnection } from '@slipstream/client';
import { startNatsServer, startSlipstreamServer } from '@slipstream/test-servers';
import { afterAll, beforeAll } from 'vitest';
import {
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  StorageType,
} from '../src/mod.js';

/** A server with JetStream on, in a fresh store directory. */
export interface JetStreamServer {
  readonly url: string;
  stop(): Promise<void>;
}

export interface JetStreamServerKind {
  readonly name: string;
  start(): Promise<JetStreamServer>;
}

const natsServer: JetStreamServerKind = {
  name: 'nats-server',
  start: () => startNatsServer({ jetstream: true }),
};
const slipstreamServer: JetStreamServerKind = {
  name: 'slipstream-server',
  start: () => startSlipstreamServer({ jetstream: true }),
};

/** The servers the suites run against: both. */
export const streamServers: JetStreamServerKind[] = [natsServer, slipstreamServer];

/** Features newer than nats-server 2.9.10 (2.10, 2.11) are tested against ours alone. */
export const ourServers: JetStreamServerKind[] = [slipstreamServer];

/**
 * Makes the client take `nc`'s server for `version` (the client gates features on the INFO, as
 * nats.js does): tests of 2.10/2.11 features and of their refusal then hold whatever version
 * our server advertises. Until the next reconnect.
 */
export function presentAs(nc: NatsConnection, version: string): void {
  Object.assign(nc, { info: { ...nc.info!, version } });
}

/**
 * Starts `kind` before the tests of the calling describe block and connects to it; the
 * returned getters are valid inside tests.
 */
export function useJetStreamServer(kind: JetStreamServerKind) {
  let server: JetStreamServer | undefined;
  const connections: NatsConnection[] = [];
  beforeAll(async () => {
    server = await kind.start();
  });
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await server?.stop();
  });
  return {
    url: () => server!.url,
    /** A connection closed after the block's tests. */
    connect: async () => {
      const nc = await connect({ servers: server!.url });
      connections.push(nc);
      return nc;
    },
  };
}

let streamCounter = 0;
/** A stream name no other test of the file uses. */
export const uniqueStream = (prefix = 'S') => `${prefix}${++streamCounter}_${Date.now() % 100000}`;

/**
 * `useJetStreamServer` plus one connection, manager and client on it, opened before the
 * block's tests (read `clients` inside tests).
 */
export function useJetStreamClients(kind: JetStreamServerKind) {
  const server = useJetStreamServer(kind);
  const clients = {} as { nc: NatsConnection; jsm: JetStreamManager; js: JetStreamClient };
  beforeAll(async () => {
    clients.nc = await server.connect();
    clients.jsm = await jetstreamManager(clients.nc);
    clients.js = jetstream(clients.nc);
  });
  return { server, clients };
}

/** A new memory stream of a unique name on the subjects `<name>.>`; resolves with the name. */
export async function memoryStream(jsm: JetStreamManager): Promise<string> {
  const name = uniqueStream();
  await jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
  return name;
}
