import { type ApiPrefixOptions, apiPrefix } from '@slipstream/jsapi';

/** Where the JetStream API lives and how long to wait for it; the options of nats.js. */
export interface JetStreamOptions {
  /** An explicit API prefix (e.g. an imported `JS.hub.API`); wins over `domain`. */
  apiPrefix?: string;
  /** The JetStream domain: the API is `$JS.<domain>.API`. */
  domain?: string;
  /** Milliseconds to wait for an API reply or a PubAck (default 5000). */
  timeout?: number;
  /** The most `publishAsync` acks outstanding at a time; more publishes wait (default 4000). */
  publishAsyncMaxPending?: number;
}

export type JetStreamManagerOptions = JetStreamOptions;

/** nats.js waits 5 s for the JetStream API, longer than a core request's 1 s default. */
export const DEFAULT_API_TIMEOUT = 5000;

/** The options as used: the prefix resolved once, the timeout filled in. */
export interface ResolvedOptions {
  apiPrefix: string;
  timeout: number;
}

export function resolveOptions(options: JetStreamOptions = {}): ResolvedOptions {
  const where: ApiPrefixOptions = {};
  if (options.apiPrefix) where.apiPrefix = options.apiPrefix;
  if (options.domain) where.domain = options.domain;
  return { apiPrefix: apiPrefix(where), timeout: options.timeout ?? DEFAULT_API_TIMEOUT };
}
