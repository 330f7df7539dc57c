import type { ApiOperationName, ApiRequest } from '@slipstream/jsapi';
import type { JetStreamHost } from '../jetstream-host.js';
import type { JsAccount } from '../js-account.js';

/** What a handler gets: the account asking, the subject's parameters and the decoded body. */
export interface ApiContext<Op extends ApiOperationName> {
  readonly js: JetStreamHost;
  readonly account: JsAccount;
  readonly params: Record<string, string>;
  readonly request: ApiRequest<Op> | undefined;
}

/**
 * How one API operation is answered: the response type suffix, the handler (which returns the
 * response body without `type`, or throws an ApiError) and the zero fields nats-server also
 * writes into that operation's error responses.
 */
export interface ApiRoute<Op extends ApiOperationName> {
  readonly type: string;
  readonly errorFields?: Record<string, unknown>;
  handle(context: ApiContext<Op>): object | Promise<object>;
}

export type ApiRoutes = { readonly [Op in ApiOperationName]?: ApiRoute<Op> };

/** One page of a listing, as nats-server pages: offset clamped to the total (and to 0). */
export function page<T>(items: T[], offset: number | undefined, limit: number) {
  const start = Math.min(Math.max(offset ?? 0, 0), items.length);
  return { total: items.length, offset: start, limit, items: items.slice(start, start + limit) };
}
