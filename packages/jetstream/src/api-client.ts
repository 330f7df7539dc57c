import type { Msg, NatsConnection } from '@slipstream/client';
import {
  type ApiOperationName,
  type ApiRequest,
  type ApiResponse,
  type ApiSubjectParams,
  apiSubject,
  decodeApiRequest,
  decodeApiResponse,
  describeIssues,
  responseError,
} from '@slipstream/jsapi';
import { fromApiError, JetStreamApiError, JetStreamError } from './errors.js';
import type { ResolvedOptions } from './options.js';
import { retryingRequest } from './request.js';

/** The success branch of an operation's response (its error branch is thrown instead). */
export type ApiSuccess<Op extends ApiOperationName> = Exclude<ApiResponse<Op>, { error: unknown }>;

/** A request body as the caller may give it: the jsapi request type, fields all optional. */
export type ApiBody<Op extends ApiOperationName> = ApiRequest<Op> | undefined;

/**
 * Calls the `$JS.API` through the jsapi schemas: the body is checked by the rules of its
 * operation before it leaves (a body the server would refuse fails here with the same
 * code and err_code), and the reply is decoded with the response schema, an error reply
 * becoming a thrown JetStreamApiError.
 */
export class ApiClient {
  readonly nc: NatsConnection;
  readonly options: ResolvedOptions;

  constructor(nc: NatsConnection, options: ResolvedOptions) {
    this.nc = nc;
    this.options = options;
  }

  subject<Op extends ApiOperationName>(operation: Op, params: ApiSubjectParams<Op>): string {
    return apiSubject(operation, params, { apiPrefix: this.options.apiPrefix });
  }

  async call<Op extends ApiOperationName>(
    operation: Op,
    params: ApiSubjectParams<Op>,
    body?: ApiBody<Op>,
  ): Promise<ApiSuccess<Op>> {
    const reply = await this.request(operation, params, body);
    return decodeReply(operation, reply.data);
  }

  /** The raw reply, for the operations that answer with a message rather than JSON. */
  request<Op extends ApiOperationName>(
    operation: Op,
    params: ApiSubjectParams<Op>,
    body?: ApiBody<Op>,
  ): Promise<Msg> {
    const payload = encodeRequest(operation, body);
    return retryingRequest(this.nc, this.subject(operation, params), payload, {
      timeout: this.options.timeout,
    });
  }
}

/** The body as JSON, checked with the operation's request schema; '' when there is none. */
export function encodeRequest<Op extends ApiOperationName>(operation: Op, body: ApiBody<Op>) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const checked = decodeApiRequest(operation, payload);
  if (!checked.ok) throw new JetStreamApiError(checked.error.toJSON(), { cause: checked.error });
  return payload;
}

/** The reply decoded with the operation's response schema; an error reply is thrown. */
export function decodeReply<Op extends ApiOperationName>(
  operation: Op,
  data: Uint8Array,
): ApiSuccess<Op> {
  const decoded = decodeApiResponse(operation, data);
  if (!decoded.ok) {
    throw new JetStreamError(`unexpected ${operation} reply: ${describeIssues(decoded.issues)}`, {
      cause: decoded.error,
    });
  }
  const error = responseError(decoded.value);
  if (error) throw fromApiError(error);
  return decoded.value as ApiSuccess<Op>;
}
