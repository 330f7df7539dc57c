import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type ConnectionOptions, connect, type NatsConnection } from '@nats-io/transport-node';
import { type ServerOptions, silentLogger, startServer } from '../../src/index.js';

/** The monitoring port's basic auth the dashboard tests run behind, unless they say otherwise. */
export const MONITORING_CREDENTIALS = { user: 'ops', pass: 'ops-secret' };

export function basicAuthHeader(user: string, pass: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` };
}

export interface DashboardServer {
  /** `http://127.0.0.1:<monitoring port>` */
  readonly url: string;
  readonly nc: NatsConnection;
  /** Publishes to a stream and waits for its PubAck. */
  publish(subject: string, payload: string, headers?: Record<string, string>): Promise<number>;
  /** A request to the monitoring port, with its basic auth when it has one. */
  get(path: string, init?: RequestInit): Promise<Response>;
  json<T = Record<string, unknown>>(path: string, init?: RequestInit): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Our server with JetStream in a fresh store directory and monitoring on a free 127.0.0.1 port
 * behind MONITORING_CREDENTIALS (pass `monitoringAuth: undefined` for an open port), and an
 * official client connected to it.
 */
export async function startDashboardServer(
  options: Partial<ServerOptions> = {},
  /** For the official client: a user to log in as, TLS… */
  connectOptions: ConnectionOptions = {},
): Promise<DashboardServer> {
  const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-dashboard-'));
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    httpPort: 0,
    jetstream: { storeDir },
    logger: silentLogger,
    monitoringAuth: MONITORING_CREDENTIALS,
    ...options,
  });
  const auth = 'monitoringAuth' in options ? options.monitoringAuth : MONITORING_CREDENTIALS;
  const nc = await connect({ port: server.port, ...connectOptions });
  const js = jetstream(nc);
  const url = server.httpUrl!;
  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { ...(auth ? basicAuthHeader(auth.user, auth.pass) : {}), ...init.headers },
    });
  return {
    url,
    nc,
    async publish(subject, payload, headers) {
      const { headers: makeHeaders } = await import('@nats-io/transport-node');
      let h: ReturnType<typeof makeHeaders> | undefined;
      if (headers) {
        h = makeHeaders();
        for (const [name, value] of Object.entries(headers)) h.set(name, value);
      }
      const ack = await js.publish(subject, payload, h ? { headers: h } : {});
      return ack.seq;
    },
    get,
    json: async (path, init) => (await (await get(path, init)).json()) as never,
    async stop() {
      await nc.close();
      await server.close();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

export { jetstreamManager };
