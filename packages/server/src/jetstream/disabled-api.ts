/**
 * The `$JS.API` of an account JetStream is not enabled for, on a server that runs JetStream:
 * every known operation is answered with nats-server's JSNotEnabledForAccountErr, in that
 * operation's response type and with its usual zero fields, so a client learns why instead of
 * waiting for a timeout.
 */
import {
  ApiError,
  type ApiOperationName,
  apiResponseType,
  jsErrors,
  parseApiSubject,
} from '@slipstream/jsapi';
import type { InternalClient } from '../internal-client.js';
import type { ApiRoute } from './api/route.js';
import { apiRoutes } from './api/routes.js';

const NOT_ENABLED = ApiError.of(jsErrors.JSNotEnabledForAccountErr);

export function answerJetStreamDisabled(client: InternalClient): void {
  client.subscribe('$JS.API.>', (message) => {
    if (!message.reply) return;
    const parsed = parseApiSubject(message.subject);
    const route = parsed && (apiRoutes[parsed.operation] as ApiRoute<ApiOperationName> | undefined);
    if (!route) return;
    const { code, errCode, description } = NOT_ENABLED;
    const body = {
      type: apiResponseType(route.type),
      error: { code, err_code: errCode, description },
      ...route.errorFields,
    };
    client.publish(message.reply, Buffer.from(JSON.stringify(body)));
  });
}
