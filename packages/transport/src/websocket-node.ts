import { createRequire } from 'node:module';
import type WebSocket from 'ws';
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
      new (loadWs())(url, {
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

/**
 * `ws`, loaded on the first WebSocket connection: importing it costs a program that never
 * connects over WebSocket (most, such as every `slip` command) a tenth of a second at start.
 */
function loadWs(): typeof WebSocket {
  return createRequire(import.meta.url)('ws') as typeof WebSocket;
}
