import { websocketTransport } from '@slipstream/transport/websocket';
import { NatsConnectionImpl } from './connection.js';
import type { ConnectionOptions, NatsConnection } from './types.js';

export { websocketTransport } from '@slipstream/transport/websocket';
export * from './mod.js';

/** Connects to NATS. In browsers the transport is the native WebSocket (`ws://` / `wss://` servers). */
export function connect(options: ConnectionOptions = {}): Promise<NatsConnection> {
  return NatsConnectionImpl.connect({
    ...options,
    transport: options.transport ?? websocketTransport(),
  });
}
