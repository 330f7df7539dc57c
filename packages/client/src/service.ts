import { headers as createHeaders, nuid } from '@slipstream/protocol';
import { InvalidArgumentError, InvalidOperationError } from './errors.js';
import {
  type Msg,
  type NatsConnection,
  type Payload,
  type PublishOptions,
  type RequestManyOptions,
  RequestStrategy,
  type Subscription,
} from './types.js';

/** The response types of the NATS micro protocol (`io.nats.micro.v1`). */
export enum ServiceResponseType {
  STATS = 'io.nats.micro.v1.stats_response',
  INFO = 'io.nats.micro.v1.info_response',
  PING = 'io.nats.micro.v1.ping_response',
}

export enum ServiceVerb {
  PING = 'PING',
  STATS = 'STATS',
  INFO = 'INFO',
}

export const ServiceErrorHeader = 'Nats-Service-Error';
export const ServiceErrorCodeHeader = 'Nats-Service-Error-Code';

/** A request to a service endpoint, with a way to answer it with an error. */
export interface ServiceMsg extends Msg {
  /** Replies with an empty (or `data`) payload and the Nats-Service-Error headers. */
  respondError(
    code: number,
    description: string,
    data?: Payload,
    options?: PublishOptions,
  ): boolean;
}

export type ServiceHandler = (err: Error | null, msg: ServiceMsg) => void | Promise<void>;

export interface EndpointOptions {
  /** Subject to listen on; the endpoint name by default. */
  subject?: string;
  handler?: ServiceHandler;
  metadata?: Record<string, string>;
  /** Queue group; the group's or service's by default. */
  queue?: string;
}

export interface ServiceConfig {
  /** Letters, digits, `-` and `_`. */
  name: string;
  /** A semantic version (`1.0.0`). */
  version: string;
  description?: string;
  metadata?: Record<string, string>;
  /** Queue group of every endpoint unless overridden (default `q`). */
  queue?: string;
  /** Extra per-endpoint data for STATS responses. */
  statsHandler?: (endpoint: EndpointInfo) => Promise<unknown>;
}

export interface ServiceIdentity {
  type: ServiceResponseType;
  name: string;
  id: string;
  version: string;
  metadata: Record<string, string>;
}

export interface EndpointInfo {
  name: string;
  subject: string;
  queue_group: string;
  metadata?: Record<string, string>;
}

export interface NamedEndpointStats {
  name: string;
  subject: string;
  queue_group: string;
  num_requests: number;
  num_errors: number;
  last_error: string;
  /** Nanoseconds. */
  processing_time: number;
  /** Nanoseconds. */
  average_processing_time: number;
  data?: unknown;
}

export interface ServiceInfo extends ServiceIdentity {
  description: string;
  endpoints: EndpointInfo[];
}

export interface ServiceStats extends ServiceIdentity {
  /** ISO date of the start. */
  started: string;
  endpoints: NamedEndpointStats[];
}

export interface ServiceGroup {
  /** Adds an endpoint; without a handler, iterate the returned messages. */
  addEndpoint(name: string, options?: ServiceHandler | EndpointOptions): AsyncIterable<ServiceMsg>;
  /** A subject prefix (and default queue) for the endpoints added through it. */
  addGroup(prefix?: string, queue?: string): ServiceGroup;
}

export interface Service extends ServiceGroup {
  /** Resolves with null, or the error that stopped the service. */
  readonly stopped: Promise<Error | null>;
  readonly isStopped: boolean;
  stats(): Promise<ServiceStats>;
  info(): ServiceInfo;
  ping(): ServiceIdentity;
  reset(): void;
  stop(error?: Error): Promise<Error | null>;
}

/** A service error reply, as a value: `ServiceError.toServiceError(msg)` reads one from headers. */
export class ServiceError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
  }

  static isServiceError(msg: Msg): boolean {
    return ServiceError.toServiceError(msg) !== null;
  }

  static toServiceError(msg: Msg): ServiceError | null {
    const code = msg.headers?.get(ServiceErrorCodeHeader) ?? '';
    if (code === '') return null;
    const description = msg.headers?.get(ServiceErrorHeader) ?? '';
    return new ServiceError(Number.parseInt(code, 10) || 400, description || code);
  }
}

const NAME = /^[-\w]+$/;

/** Service, queue and endpoint names, and discovery names and ids: letters, digits, - and _. */
function checkName(what: string, name: string): void {
  if (!NAME.test(name)) {
    throw new InvalidArgumentError(`${what} '${name}' may only hold A-Z, a-z, 0-9, - and _`);
  }
}

/**
 * The checks nats.js makes of an endpoint subject or a group name: no space, no `>` token (an
 * endpoint subject may end with one). The subscription checks the subject they make up.
 */
function checkSubjectPart(what: string, part: string, mayEndWithFullWildcard: boolean): void {
  if (part.includes(' ')) throw new InvalidArgumentError(`${what} '${part}' holds a space`);
  const tokens = part.split('.');
  const allowedAt = mayEndWithFullWildcard ? tokens.length - 1 : -1;
  if (tokens.some((token, i) => token === '>' && i !== allowedAt)) {
    const where = mayEndWithFullWildcard ? ' before its end' : '';
    throw new InvalidArgumentError(`${what} '${part}' holds a '>' token${where}`);
  }
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * Starts a service speaking the NATS micro protocol: endpoints in a queue group, and discovery
 * on `$SRV.PING|INFO|STATS[.name[.id]]` so `nats micro ls` and other clients find it.
 */
export async function addService(nc: NatsConnection, config: ServiceConfig): Promise<Service> {
  checkName('service name', config.name);
  if (config.queue) checkName('service queue', config.queue);
  if (!SEMVER.test(config.version))
    throw new InvalidArgumentError(`service version '${config.version}' is not a semantic version`);
  const service = new ServiceImpl(nc, config);
  await nc.flush();
  return service;
}

class Endpoint {
  readonly info: EndpointInfo;
  readonly sub: Subscription;
  numRequests = 0;
  numErrors = 0;
  lastError = '';
  processingNanos = 0;

  constructor(info: EndpointInfo, sub: Subscription) {
    this.info = info;
    this.sub = sub;
  }

  stats(data: unknown): NamedEndpointStats {
    const stats: NamedEndpointStats = {
      name: this.info.name,
      subject: this.info.subject,
      queue_group: this.info.queue_group,
      num_requests: this.numRequests,
      num_errors: this.numErrors,
      last_error: this.lastError,
      processing_time: this.processingNanos,
      average_processing_time:
        this.numRequests === 0 ? 0 : Math.round(this.processingNanos / this.numRequests),
    };
    if (data !== undefined && data !== null) stats.data = data;
    return stats;
  }

  reset(): void {
    this.numRequests = 0;
    this.numErrors = 0;
    this.lastError = '';
    this.processingNanos = 0;
  }
}

/** Wraps a request so its answer is timed and errors are counted for its endpoint. */
class ServiceMsgImpl implements ServiceMsg {
  readonly #msg: Msg;
  readonly #endpoint: Endpoint;
  readonly #start = performance.now();
  #answered = false;

  constructor(msg: Msg, endpoint: Endpoint) {
    this.#msg = msg;
    this.#endpoint = endpoint;
  }

  get subject() {
    return this.#msg.subject;
  }
  get sid() {
    return this.#msg.sid;
  }
  get reply() {
    return this.#msg.reply;
  }
  get data() {
    return this.#msg.data;
  }
  get headers() {
    return this.#msg.headers;
  }
  json<T = unknown>(reviver?: (key: string, value: unknown) => unknown): T {
    return this.#msg.json<T>(reviver);
  }
  string(): string {
    return this.#msg.string();
  }

  respond(payload?: Payload, options?: PublishOptions): boolean {
    this.#finish();
    return this.#msg.respond(payload, options);
  }

  respondError(
    code: number,
    description: string,
    data?: Payload,
    options?: PublishOptions,
  ): boolean {
    const h = options?.headers ?? createHeaders();
    h.set(ServiceErrorHeader, description);
    h.set(ServiceErrorCodeHeader, String(code));
    this.#endpoint.numErrors++;
    this.#endpoint.lastError = `${code}:${description}`;
    return this.respond(data, { ...options, headers: h });
  }

  /** Counts a handler that failed without answering as an error, and answers 500 for it. */
  failed(error: unknown): void {
    if (this.#answered) return;
    const text = error instanceof Error ? error.message : String(error);
    this.respondError(500, text);
  }

  #finish(): void {
    if (this.#answered) return;
    this.#answered = true;
    this.#endpoint.processingNanos += Math.round((performance.now() - this.#start) * 1e6);
  }
}

class ServiceImpl implements Service {
  readonly stopped: Promise<Error | null>;
  readonly #nc: NatsConnection;
  readonly #config: ServiceConfig;
  readonly #id = nuid.next();
  readonly #endpoints: Endpoint[] = [];
  readonly #discovery: Subscription[] = [];
  #started = new Date().toISOString();
  #stopped = false;
  #resolveStopped!: (value: Error | null) => void;

  constructor(nc: NatsConnection, config: ServiceConfig) {
    this.#nc = nc;
    this.#config = config;
    this.stopped = new Promise((resolve) => {
      this.#resolveStopped = resolve;
    });
    for (const verb of [ServiceVerb.PING, ServiceVerb.INFO, ServiceVerb.STATS]) {
      for (const subject of [
        `$SRV.${verb}`,
        `$SRV.${verb}.${config.name}`,
        `$SRV.${verb}.${config.name}.${this.#id}`,
      ]) {
        this.#discovery.push(
          nc.subscribe(subject, {
            callback: (error, msg) => {
              if (error) void this.stop(error);
              else void this.#answerDiscovery(verb, msg);
            },
          }),
        );
      }
    }
    void nc.closed().then(() => this.#markStopped(null));
  }

  get isStopped(): boolean {
    return this.#stopped;
  }

  addEndpoint(name: string, options?: ServiceHandler | EndpointOptions): AsyncIterable<ServiceMsg> {
    return this.#addEndpoint('', this.#config.queue ?? 'q', name, options);
  }

  addGroup(name = '', queue?: string): ServiceGroup {
    return this.#group('', name, queue ?? this.#config.queue ?? 'q');
  }

  #group(parent: string, name: string, queue: string): ServiceGroup {
    checkSubjectPart('group name', name, false);
    const prefix = joinSubject(parent, name);
    return {
      addEndpoint: (endpoint, options) => this.#addEndpoint(prefix, queue, endpoint, options),
      addGroup: (sub = '', subQueue) => this.#group(prefix, sub, subQueue ?? queue),
    };
  }

  #addEndpoint(
    prefix: string,
    queue: string,
    name: string,
    options: ServiceHandler | EndpointOptions = {},
  ): AsyncIterable<ServiceMsg> {
    if (this.#stopped) throw new InvalidOperationError('the service is stopped');
    checkName('endpoint name', name);
    const opts = typeof options === 'function' ? { handler: options } : options;
    const own = opts.subject || name;
    checkSubjectPart('endpoint subject', own, true);
    const subject = joinSubject(prefix, own);
    const info: EndpointInfo = { name, subject, queue_group: opts.queue || queue };
    if (opts.metadata) info.metadata = opts.metadata;
    const handler = opts.handler;
    let endpoint: Endpoint;
    const sub = this.#nc.subscribe(subject, {
      queue: info.queue_group,
      callback: handler
        ? (error, msg) => {
            if (error) {
              void this.stop(error);
              return;
            }
            endpoint.numRequests++;
            const request = new ServiceMsgImpl(msg, endpoint);
            try {
              const result = handler(null, request);
              if (result && typeof result.then === 'function')
                result.then(undefined, (e) => request.failed(e));
            } catch (e) {
              request.failed(e);
            }
          }
        : undefined,
    });
    endpoint = new Endpoint(info, sub);
    this.#endpoints.push(endpoint);
    if (handler) return emptyIterable();
    return mapIterable(sub, (msg) => {
      endpoint.numRequests++;
      return new ServiceMsgImpl(msg, endpoint);
    });
  }

  ping(): ServiceIdentity {
    return {
      type: ServiceResponseType.PING,
      name: this.#config.name,
      id: this.#id,
      version: this.#config.version,
      metadata: this.#config.metadata ?? {},
    };
  }

  info(): ServiceInfo {
    return {
      ...this.ping(),
      type: ServiceResponseType.INFO,
      description: this.#config.description ?? '',
      endpoints: this.#endpoints.map((e) => e.info),
    };
  }

  async stats(): Promise<ServiceStats> {
    const endpoints = await Promise.all(
      this.#endpoints.map(async (e) =>
        e.stats(this.#config.statsHandler ? await this.#config.statsHandler(e.info) : undefined),
      ),
    );
    return { ...this.ping(), type: ServiceResponseType.STATS, started: this.#started, endpoints };
  }

  reset(): void {
    this.#started = new Date().toISOString();
    for (const e of this.#endpoints) e.reset();
  }

  async stop(error?: Error): Promise<Error | null> {
    if (this.#stopped) return this.stopped;
    this.#stopped = true;
    if (!this.#nc.isClosed()) {
      // allSettled: an endpoint whose iterator already ended must not cut the others short.
      await Promise.allSettled([
        ...this.#endpoints.map((e) => e.sub.drain()),
        ...this.#discovery.map((s) => s.drain()),
      ]);
    }
    this.#markStopped(error ?? null);
    return this.stopped;
  }

  #markStopped(error: Error | null): void {
    this.#stopped = true;
    this.#resolveStopped(error);
  }

  async #answerDiscovery(verb: ServiceVerb, msg: Msg): Promise<void> {
    const body =
      verb === ServiceVerb.PING
        ? this.ping()
        : verb === ServiceVerb.INFO
          ? this.info()
          : await this.stats();
    if (!this.#nc.isClosed()) msg.respond(JSON.stringify(body));
  }
}

export interface ServiceClient {
  ping(name?: string, id?: string): Promise<AsyncIterable<ServiceIdentity>>;
  info(name?: string, id?: string): Promise<AsyncIterable<ServiceInfo>>;
  stats(name?: string, id?: string): Promise<AsyncIterable<ServiceStats>>;
}

/**
 * Discovers running services: each call asks `$SRV.<VERB>[.name[.id]]` and yields the answers.
 * `options` are requestMany's (as nats.js `svcm.client(opts)`): by default it stops when none
 * came for `jitter` (300) ms or `maxWait` (2000) ms passed.
 */
export function serviceClient(
  nc: NatsConnection,
  options: Partial<RequestManyOptions> = {},
): ServiceClient {
  const ask = async <T>(verb: ServiceVerb, name = '', id = ''): Promise<AsyncIterable<T>> => {
    // As nats.js: with neither every service answers; an id needs a name.
    if (name || id) checkName('service name', name);
    if (id) checkName('service id', id);
    const subject = ['$SRV', verb, ...(id ? [name, id] : name ? [name] : [])].join('.');
    const replies = await nc.requestMany(subject, '', {
      strategy: RequestStrategy.JitterTimer,
      maxWait: 2000,
      jitter: 300,
      ...options,
    });
    return mapIterable(replies, (msg) => msg.json<T>());
  };
  return {
    ping: (name, id) => ask<ServiceIdentity>(ServiceVerb.PING, name, id),
    info: (name, id) => ask<ServiceInfo>(ServiceVerb.INFO, name, id),
    stats: (name, id) => ask<ServiceStats>(ServiceVerb.STATS, name, id),
  };
}

function joinSubject(prefix: string, subject: string): string {
  return prefix ? (subject ? `${prefix}.${subject}` : prefix) : subject;
}

function emptyIterable<T>(): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]: () => ({ next: async () => ({ value: undefined, done: true }) }),
  };
}

function mapIterable<A, B>(source: AsyncIterable<A>, map: (a: A) => B): AsyncIterable<B> {
  return {
    [Symbol.asyncIterator]: () => {
      const inner = source[Symbol.asyncIterator]();
      return {
        next: async () => {
          const r = await inner.next();
          return r.done ? r : { value: map(r.value), done: false };
        },
        return: async () => {
          await inner.return?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
