/**
 * The dashboard: a web page at `/` of the monitoring port that shows the server (overview,
 * connections, subjects, JetStream streams and their messages and consumers, KV buckets, object
 * stores, accounts). Its files are built into the package (`bundle.ts`); the page reads the
 * monitoring endpoints themselves (/varz, /connz, /subsz, /jsz, /accountz), a live feed
 * (`live-updates.ts`), and the JetStream data below, which comes from each account's own
 * `$JS.API` (`js-api.ts`), so it shows no more than a client of that account may ask for.
 * What the monitoring port did not show before, the contents of messages, KV entries and
 * objects, is answered only when the port has basic auth (`monitoringAuth`); streams and
 * consumers are what /jsz already gives. Actions that change state (`actions.ts`) are answered
 * only when the options enable them (which needs `monitoringAuth` too).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsz } from '../jsz.js';
import type { MonitoredServer } from '../monitored-server.js';
import { Query } from '../query.js';
import { BadDashboardRequest } from './bad-request.js';
import { type BundleFile, loadBundle } from './bundle.js';
import { JsApi, JsApiError } from './js-api.js';
import { LiveUpdates } from './live-updates.js';

export interface DashboardOptions {
  /** Whether the state-changing actions (purge, delete) are answered. */
  readonly actions: boolean;
}

export interface Dashboard {
  /** Answers `req` when its path is the dashboard's; false when it is not. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  close(): void;
}

/**
 * The header a state-changing request must carry: a cross-site form cannot set it, and a script
 * of another origin that sets it must first pass a CORS preflight, which this port never grants.
 */
export const ACTION_HEADER = 'x-slipstream-dashboard';

const API = '/dashboard/api/';

// The page loads its own script and style only; whatever a stream holds cannot run as code.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

type DataRoute = (api: JsApi, params: URLSearchParams) => Promise<unknown>;

/** The routes that give message, KV and object contents, answered only behind basic auth. */
const CONTENT_ROUTES = new Set(['messages', 'kv-keys', 'kv-history', 'objects', 'object']);

export const CONTENTS_NEED_AUTH =
  'message, KV and object contents are shown only when the monitoring port has basic auth (the monitoringAuth option)';

/**
 * The routes that ask JetStream, with jsapi's name checks (and so zod): loaded by the first
 * request for one, so that a server started with monitoring alone loads no JetStream code.
 */
async function jetstreamRoutes() {
  const [data, { ACTIONS }] = await Promise.all([
    import('./jetstream-data.js'),
    import('./actions.js'),
  ]);
  const routes: Record<string, DataRoute> = {
    stream: data.streamDetail,
    messages: data.streamMessages,
    'kv-keys': data.kvKeys,
    'kv-history': data.kvHistory,
    objects: data.objectList,
  };
  return { ...data, actions: ACTIONS, routes };
}

export function createDashboard(
  server: MonitoredServer,
  varz: () => unknown,
  options: DashboardOptions,
): Dashboard {
  // Read on the first request for it, so a server nobody browses does not spend its start on it.
  let bundle: ReadonlyMap<string, BundleFile> | undefined | null = null;
  const apis = new Map<string, JsApi>();
  const contents = server.options.monitoringAuth !== undefined;
  const live = new LiveUpdates(() => ({ varz: varz(), jetstream: streamStates(server) }));

  /** The JetStream API of `account` (default: the first account JetStream runs for). */
  const apiOf = (params: URLSearchParams): JsApi => {
    const accounts = server.jetstream?.accounts;
    if (!accounts) throw new JsApiError(503, 'JetStream is not enabled');
    const name = params.get('account') || [...accounts.keys()][0];
    const account = name === undefined ? undefined : server.accounts.get(name);
    if (!account || !accounts.has(name!)) {
      throw new JsApiError(404, `JetStream is not enabled for account ${JSON.stringify(name)}`);
    }
    let api = apis.get(account.name);
    if (!api) {
      api = new JsApi(account.name, server.internalClient(account));
      apis.set(account.name, api);
    }
    return api;
  };

  const answerData = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const params = new URL(req.url ?? '/', 'http://monitor').searchParams;
    const name = path.slice(API.length);
    if (name === 'config') {
      sendJson(res, 200, {
        actions: options.actions,
        contents,
        jetstream: [...(server.jetstream?.accounts.keys() ?? [])],
        accounts: server.options.accounts !== undefined,
      });
      return;
    }
    if (CONTENT_ROUTES.has(name) && !contents) {
      return sendJson(res, 403, { error: CONTENTS_NEED_AUTH });
    }
    const jetstream = await jetstreamRoutes();
    if (name === 'object') {
      const { name: object, content } = await jetstream.objectContent(apiOf(params), params);
      res.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'X-Content-Type-Options': 'nosniff',
        'Content-Length': content.length,
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(object)}`,
      });
      res.end(content);
      return;
    }
    if (name.startsWith('actions/')) {
      const action = jetstream.actions[name.slice('actions/'.length)];
      if (!action) return sendJson(res, 404, { error: 'no such action' });
      if (!options.actions) {
        return sendJson(res, 403, { error: 'actions are disabled (option dashboard.actions)' });
      }
      if (req.method !== 'POST' || req.headers[ACTION_HEADER] !== '1') {
        return sendJson(res, 400, { error: `an action is a POST with header ${ACTION_HEADER}: 1` });
      }
      return sendJson(res, 200, await action(apiOf(params), params));
    }
    if (name === 'streams') {
      const api = apiOf(params);
      // The damage /healthz and the log report, for the streams it concerns.
      const damaged = server.jetstream?.accounts.get(api.account)?.damaged ?? [];
      return sendJson(res, 200, { streams: await jetstream.listStreams(api), damaged });
    }
    const route = jetstream.routes[name];
    if (!route) return sendJson(res, 404, { error: 'not found' });
    sendJson(res, 200, await route(apiOf(params), params));
  };

  return {
    handle(req, res, path) {
      if (path === '/' || path === '/dashboard/app.js' || path === '/dashboard/app.css') {
        if (bundle === null) bundle = loadBundle();
        const file = bundle?.get(path === '/' ? 'index.html' : path.slice('/dashboard/'.length));
        if (!file) {
          sendText(res, 503, 'the dashboard is not built: run the build of @slipstream/server\n');
        } else {
          sendFile(req, res, file);
        }
        return true;
      }
      if (path === '/dashboard/events') {
        live.open(res);
        return true;
      }
      if (!path.startsWith(API)) return false;
      answerData(req, res, path).catch((error: unknown) => {
        if (error instanceof BadDashboardRequest) sendJson(res, 400, { error: error.message });
        else if (error instanceof JsApiError) sendJson(res, error.status, { error: error.message });
        else sendJson(res, 500, { error: `internal error: ${(error as Error).message}` });
      });
      return true;
    },
    close() {
      live.close();
      for (const api of apis.values()) api.close();
      apis.clear();
    },
  };
}

/** Each account's streams with the state the page follows live (what /jsz?streams=1 shows). */
function streamStates(server: MonitoredServer) {
  if (!server.jetstream) return undefined;
  const body = jsz(server, new Query('/jsz?streams=1')) as {
    account_details?: { name: string; stream_detail?: { name: string; state: unknown }[] }[];
  };
  return Object.fromEntries(
    (body.account_details ?? []).map((account) => [
      account.name,
      Object.fromEntries((account.stream_detail ?? []).map((s) => [s.name, s.state])),
    ]),
  );
}

function sendFile(req: IncomingMessage, res: ServerResponse, file: BundleFile): void {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzipped : file.body;
  res.writeHead(200, {
    ...PAGE_HEADERS,
    'Content-Type': file.contentType,
    'Content-Length': body.length,
    'Cache-Control': 'no-cache',
    Vary: 'Accept-Encoding',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
