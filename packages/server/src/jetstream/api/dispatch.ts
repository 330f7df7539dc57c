/**
 * Room `jetstream/api/` (this is its main file): the `$JS.API` operations, one `ApiRoute` each
 * (`routes.ts`), answered for one account. Routes reach JetStream only through `ApiContext`.
 *
 * The one `$JS.API.>` subscription: every request is matched to its operation, its body decoded
 * with the jsapi schema, its handler run, and the answer (or the error, as JSON with nats-server's
 * code and err_code) sent to the reply subject. The preamble every handler would repeat lives
 * here once. Operations without a route get no answer, as a server that does not know them.
 */
import {
  ApiError,
  type ApiOperationName,
  apiResponseType,
  decodeApiRequest,
  jsErrors,
  parseApiSubject,
} from '@slipstream/jsapi';
import type { InternalMessage } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';
import type { ApiExchange } from '../advisories.js';
import type { JetStreamHost } from '../jetstream-host.js';
import { StoreError } from '../store/message-store.js';
import { requiredApiLevelRefused } from '../stream/stream-api-level.js';
import type { ApiRoute } from './route.js';
import { apiRoutes } from './routes.js';

const API_SUBJECTS = '$JS.API.>';

/** What answering a request needs once the handler is done, which may be after the callback. */
interface PendingRequest {
  readonly account: string;
  readonly reply: string | undefined;
  /** The request as the API audit reports it, kept only when someone listens for audits. */
  readonly audited: Omit<ApiExchange, 'response'> | undefined;
}

export class ApiDispatcher {
  readonly #subscriptions: Subscription[] = [];

  constructor(private readonly js: JetStreamHost) {}

  start(): void {
    const { client, options } = this.js;
    this.#subscriptions.push(client.subscribe(API_SUBJECTS, (m) => this.#dispatch(m)));
    const domain = options.domain;
    if (domain) {
      // The domain's API is the same API, as nats-server maps `$JS.<domain>.API.>` onto it;
      // under it `$KV.>` and `$OBJ.>` are the buckets' own subjects (its generateJSMappingTable),
      // where a KV mirror of another domain sends its puts.
      const prefix = `$JS.${domain}.API.`;
      this.#subscriptions.push(
        client.subscribe(`${prefix}>`, (m) => {
          const rest = m.subject.slice(prefix.length);
          const bucket = rest.startsWith('$KV.') || rest.startsWith('$OBJ.');
          client.publish(bucket ? rest : `$JS.API.${rest}`, m.payload, {
            reply: m.reply,
            headers: m.headers,
          });
        }),
      );
    }
  }

  stop(): void {
    for (const sub of this.#subscriptions.splice(0)) this.js.client.unsubscribe(sub);
  }

  #dispatch(message: InternalMessage): void {
    const parsed = parseApiSubject(message.subject);
    if (!parsed) return;
    const route = apiRoutes[parsed.operation] as ApiRoute<ApiOperationName> | undefined;
    if (!route) return;
    const account = this.js.account();
    account.api.total++;
    const request: PendingRequest = {
      account: account.name,
      reply: message.reply,
      // The payload is a view into the publisher's socket chunk: the audit keeps its own copy.
      audited: this.js.advisories.auditWanted
        ? { subject: message.subject, request: Buffer.from(message.payload).toString() }
        : undefined,
    };
    let answer: object | Promise<object>;
    try {
      // Before the body is read, as nats-server's handlers do (2.12).
      if (requiredApiLevelRefused(message.headers))
        throw ApiError.of(jsErrors.JSRequiredApiLevelErr);
      const decoded = decodeApiRequest(parsed.operation, message.payload);
      if (!decoded.ok) throw decoded.error;
      answer = route.handle({
        js: this.js,
        account,
        params: parsed.params,
        request: decoded.value,
      });
    } catch (error) {
      this.#fail(route, request, error);
      return;
    }
    if (answer instanceof Promise) {
      answer.then(
        (body) => this.#send(request, { type: apiResponseType(route.type), ...body }),
        (error) => this.#fail(route, request, error),
      );
    } else {
      this.#send(request, { type: apiResponseType(route.type), ...answer });
    }
  }

  #fail(route: ApiRoute<ApiOperationName>, request: PendingRequest, error: unknown): void {
    this.js.account().api.errors++;
    const apiError = asApiError(error);
    if (!(error instanceof ApiError)) {
      this.js.logger.error(`JetStream API request failed: ${(error as Error).message}`);
    }
    this.#send(request, {
      type: apiResponseType(route.type),
      error: { code: apiError.code, err_code: apiError.errCode, description: apiError.description },
      ...route.errorFields,
    });
  }

  /**
   * Answers the requester (if it gave a reply subject) and audits the exchange, which
   * nats-server does either way.
   */
  #send(request: PendingRequest, body: object): void {
    const response = JSON.stringify(body);
    if (request.reply) this.js.client.publish(request.reply, Buffer.from(response));
    if (request.audited)
      this.js.advisories.apiAudit(request.account, { ...request.audited, response });
  }
}

function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreError && error.code === 'corrupt') {
    return ApiError.of(jsErrors.JSStreamGeneralErrorF, { err: error.message });
  }
  return ApiError.of(jsErrors.JSStreamGeneralErrorF, { err: (error as Error).message });
}
