import { startServer } from '@slipstream/server';
import { startNatsServer } from '@slipstream/test-servers';

export interface TestServer {
  readonly url: string;
  stop(): Promise<void>;
}

export interface ServerSettings {
  maxPayload?: number;
}

/** A server a test can run against: ours in-process, or the reference nats-server 2.9.10. */
export interface ServerKind {
  readonly name: string;
  start(settings?: ServerSettings): Promise<TestServer>;
}

export const slipstream: ServerKind = {
  name: 'slipstream',
  start: async (settings = {}) => {
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      ...settings,
      logger: quietLogger,
    });
    return { url: server.url, stop: () => server.close() };
  },
};

export const natsServer: ServerKind = {
  name: 'nats-server 2.9.10',
  start: async (settings = {}) => {
    const config = settings.maxPayload === undefined ? '' : `max_payload: ${settings.maxPayload}`;
    const server = await startNatsServer({ config });
    return { url: server.url, stop: () => server.stop() };
  },
};

/** Expectations that hold for nats-server too run against both, so a difference shows up as a failure. */
export const bothServers: readonly ServerKind[] = [slipstream, natsServer];

const ignore = () => {};
const quietLogger = { error: ignore, warn: ignore, info: ignore, debug: ignore, trace: ignore };
