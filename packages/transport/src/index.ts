export type {
  ByteSink,
  TlsOptions,
  Transport,
  TransportConnection,
  TransportConnectOptions,
} from './transport.js';
export { TransportError, type TransportErrorCode } from './transport-error.js';
export {
  createWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransportOptions,
} from './websocket.js';
