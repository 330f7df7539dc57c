import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import { listen } from '../listen.js';
import { refusingPlainHttp } from '../tls/plain-http-refusal.js';
import { accountStatz } from './account-statz.js';
import { accountz } from './accountz.js';
import { basicAuthCheck } from './basic-auth.js';
import { connz } from './connz.js';
import { createDashboard } from './dashboard/dashboard.js';
import { goJson } from './format.js';
import { jsz } from './jsz.js';
import { leafz } from './leafz.js';
import type { MonitoredServer } from './monitored-server.js';
import { Query, QueryError } from './query.js';
import { routez } from './routez.js';
import { gatewayz } from './standalone-endpoints.js';
import { subsz } from './subsz.js';
import { createVarz } from './varz.js';

export type { MonitoredServer } from './monitored-server.js';

export interface MonitoringServer {
  readonly port: number;
  close(): Promise<void>;
}

type Endpoint = (query: Query) => { status?: number; body: unknown; pretty?: boolean };

/**
 * The HTTP monitoring endpoints over node:http (node:https with `tls`: the client port's
 * certificate and suites, no client certificate asked, as nats-server's https_port), answering
 * like nats-server: any method,
 * pretty-printed JSON (compact for /healthz), `?callback=` JSONP, 400 text/plain for a bad query
 * value, 404 `404 page not found` otherwise, request counts in /varz http_req_stats. `/` and
 * `/dashboard/*` are our dashboard; with `monitoringAuth` every request needs basic auth.
 */
export async function startMonitoring(
  server: MonitoredServer,
  host: string,
  port: number,
  tls?: SecureContextOptions,
): Promise<MonitoringServer> {
  const httpReqStats: Record<string, number> = {};
  const varz = createVarz(server, httpReqStats);
  const dashboard = createDashboard(server, varz, server.options.dashboard);
  const credentials = server.options.monitoringAuth;
  const authorized = credentials && basicAuthCheck(credentials);
  const subszEndpoint: Endpoint = (query) => ({ body: subsz(server, query) });
  const endpoints: Record<string, Endpoint> = {
    '/varz': () => ({ body: varz() }),
    '/connz': (query) => ({ body: connz(server, query) }),
    '/routez': (query) => ({ body: routez(server, { subscriptions: query.bool('subs') }) }),
    '/gatewayz': () => ({ body: gatewayz(server) }),
    '/leafz': (query) => ({
      body: leafz(server, { subscriptions: query.bool('subs'), account: query.string('acc') }),
    }),
    '/subsz': subszEndpoint,
    '/subscriptionsz': subszEndpoint,
    '/accountz': (query) => ({ body: accountz(server, query.string('acc')) }),
    '/accstatz': (query) => ({
      body: accountStatz(server, { includeUnused: query.bool('unused') }),
    }),
    '/jsz': (query) => ({ body: jsz(server, query) }),
    '/healthz': (query) => {
      // The JetStream checks pass on a standalone server whose JetStream is running, and on
      // one without JetStream, as nats-server answers; the values are still checked. The full
      // check (no option) also looks at the streams: one found damaged makes it unhealthy.
      query.bool('js-enabled');
      const quick = query.bool('js-enabled-only') || query.bool('js-server-only');
      const damage = quick ? undefined : firstDamage(server);
      if (damage) {
        return { body: { status: 'unavailable', error: damage }, status: 503, pretty: false };
      }
      return { body: { status: 'ok' }, pretty: false };
    },
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://monitor');
    const path = url.pathname;
    const query = new Query(req.url ?? '/');
    if (dashboard.handle(req, res, path)) {
      if (path === '/') httpReqStats[path] = (httpReqStats[path] ?? 0) + 1;
      return;
    }
    const endpoint = endpoints[path];
    if (!endpoint) {
      send(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
      return;
    }
    httpReqStats[path] = (httpReqStats[path] ?? 0) + 1;
    let answer: ReturnType<Endpoint>;
    try {
      answer = endpoint(query);
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      send(res, 400, 'text/plain; charset=utf-8', error.message);
      return;
    }
    const json = goJson(answer.body, answer.pretty ?? true);
    const callback = query.string('callback');
    if (callback) send(res, answer.status ?? 200, 'application/javascript', `${callback}(${json})`);
    else send(res, answer.status ?? 200, 'application/json', json);
  };

  const respond = (req: IncomingMessage, res: ServerResponse) => {
    if (authorized && !authorized(req)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="monitoring", charset="UTF-8"' });
      res.end('401 unauthorized\n');
      return;
    }
    try {
      handle(req, res);
    } catch (error) {
      send(res, 500, 'text/plain; charset=utf-8', `internal error: ${(error as Error).message}`);
    }
  };
  const http = tls ? createHttpsServer(tls, respond) : createServer(respond);
  const front = tls ? refusingPlainHttp(http) : undefined;
  const listener = front?.listener ?? http;
  const boundPort = await listen(listener, host, port);
  return {
    port: boundPort,
    close: () =>
      new Promise<void>((resolve) => {
        dashboard.close();
        listener.close(() => resolve());
        front?.destroyAll();
        http.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The first stream of any account found damaged at start, as a /healthz error. */
function firstDamage(server: MonitoredServer): string | undefined {
  for (const account of server.jetstream?.accounts.values() ?? []) {
    const found = account.damaged[0];
    if (!found) continue;
    const what = found.error ?? `${found.seqs!.length} damaged messages`;
    return `JetStream stream '${account.name} > ${found.stream}' is damaged: ${what}`;
  }
  return undefined;
}
