import WebSocket from 'ws';
import type { Transport } from './transport.js';
import {
  createWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransportOptions,
} from './websocket.js';

export type { WebSocketLike, WebSocketTransportOptions } from './websocket.js';

/** NATS over WebSocket in Node, through the `ws` package; `ws://` and `wss://` URLs, paths kept. */
export function websocketTransport(options: WebSocketTransportOptions = {}): Transport {
  return createWebSocketTransport(
    (url, tls) =>
      new WebSocket(url, {
        perMessageDeflate: false,
        ca: tls?.ca,
        cert: tls?.cert,
        key: tls?.key,
        rejectUnauthorized: tls?.rejectUnauthorized ?? true,
        servername: tls?.servername,
      } as WebSocket.ClientOptions) as unknown as WebSocketLike,
    options,
  );
}
