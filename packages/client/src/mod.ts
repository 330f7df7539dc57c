export {
  canonicalMIMEHeaderKey,
  headers,
  Match,
  type MsgHdrs,
  MsgHdrsImpl,
  nuid,
  type ServerInfo,
} from '@slipstream/protocol';
export type { TlsOptions, Transport } from '@slipstream/transport';
export {
  credsAuthenticator,
  jwtAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from './authenticator.js';
export { Empty } from './connection.js';
export * from './errors.js';
export { createInbox } from './inbox.js';
export {
  addService,
  type EndpointInfo,
  type EndpointOptions,
  type NamedEndpointStats,
  type Service,
  type ServiceClient,
  type ServiceConfig,
  ServiceError,
  ServiceErrorCodeHeader,
  ServiceErrorHeader,
  type ServiceGroup,
  type ServiceHandler,
  type ServiceIdentity,
  type ServiceInfo,
  type ServiceMsg,
  ServiceResponseType,
  type ServiceStats,
  ServiceVerb,
  serviceClient,
} from './service.js';
export {
  type Auth,
  type Authenticator,
  type ConnectionOptions,
  type Msg,
  type MsgCallback,
  type NatsConnection,
  type Payload,
  type PublishOptions,
  type RequestManyOptions,
  type RequestOptions,
  RequestStrategy,
  type Stats,
  type Status,
  type Subscription,
  type SubscriptionOptions,
} from './types.js';
