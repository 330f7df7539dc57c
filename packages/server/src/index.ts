export type {
  AccountJetStreamOptions,
  AccountOptions,
  ExportOptions,
  ImportOptions,
  ResponseType,
} from './accounts/account-options.js';
export type { MappingDestination, MappingOptions } from './accounts/subject-mappings.js';
export type {
  AuthorizationOptions,
  PermissionsOptions,
  SubjectPermissionOptions,
  UserOptions,
} from './auth/auth-options.js';
export type { OperatorOptions, ResolverOptions } from './auth/operator-options.js';
export { collectBuffersWith } from './buffer-collection.js';
export { checkOptions } from './check-options.js';
export { type CloseReason, ErrText, ServerError, type ServerErrorCode } from './errors.js';
export type {
  LeafNodeOptions,
  LeafUser,
  RemoteLeafOptions,
} from './leafnode/leaf-options.js';
export {
  type ConsoleLoggerOptions,
  createConsoleLogger,
  type Logger,
  silentLogger,
} from './logger.js';
export {
  type AtomicBatchLimits,
  DEFAULTS,
  type JetStreamOptions,
  type ServerOptions,
} from './options.js';
export type { ClusterOptions, ClusterTlsOptions } from './route/route-options.js';
export { type NatsServer, startServer } from './server.js';
export type { TlsOptions } from './tls/tls-options.js';
export { NATS_COMPATIBLE_VERSION, VERSION } from './version.js';
export type { WebSocketOptions } from './websocket-options.js';
