import type { Transport } from './transport.js';
import { TransportError } from './transport-error.js';
import {
  createWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransportOptions,
} from './websocket.js';

export type { WebSocketLike, WebSocketTransportOptions } from './websocket.js';

/** NATS over the runtime's native WebSocket (browsers, Deno, Bun, Node 22+); `ws://` and `wss://` URLs, paths kept. */
export function websocketTransport(options: WebSocketTransportOptions = {}): Transport {
  return createWebSocketTransport((url) => {
    const NativeWebSocket = (globalThis as { WebSocket?: new (url: string) => WebSocketLike })
      .WebSocket;
    if (!NativeWebSocket) {
      throw new TransportError(
        'UNSUPPORTED_URL',
        'this runtime has no global WebSocket: pass a socketFactory',
      );
    }
    return new NativeWebSocket(url);
  }, options);
}
