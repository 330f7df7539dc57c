import { keyProblem } from '@slipstream/jsapi';
import { BadDashboardRequest } from './bad-request.js';
import { checkedName } from './jetstream-data.js';
import type { JsApi } from './js-api.js';

/**
 * The dashboard's actions that change state, each one JetStream API request (or, for a KV key, the
 * delete marker the KV clients publish), answered only when the `dashboard.actions` option
 * enables them. The browser asks for confirmation before it sends one.
 */
export const ACTIONS: Record<string, (api: JsApi, params: URLSearchParams) => Promise<unknown>> = {
  'purge-stream': (api, params) =>
    api.request(`STREAM.PURGE.${checkedName('stream', params.get('stream'))}`),
  'delete-consumer': (api, params) => {
    const stream = checkedName('stream', params.get('stream'));
    const consumer = checkedName('consumer', params.get('consumer'));
    return api.request(`CONSUMER.DELETE.${stream}.${consumer}`);
  },
  'delete-key': (api, params) => {
    const bucket = checkedName('bucket', params.get('bucket'));
    const key = params.get('key') ?? '';
    const problem = keyProblem(key);
    if (problem) throw new BadDashboardRequest(problem);
    const marker = new TextEncoder().encode('NATS/1.0\r\nKV-Operation: DEL\r\n\r\n');
    return api.publish(`$KV.${bucket}.${key}`, new Uint8Array(), marker);
  },
};
