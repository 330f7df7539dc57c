import { tcpTransport } from '@slipstream/transport/tcp';
import { NatsConnectionImpl } from './connection.js';
import type { ConnectionOptions, NatsConnection } from './types.js';

export { tcpTransport } from '@slipstream/transport/tcp';
export { websocketTransport } from '@slipstream/transport/websocket';
export * from './mod.js';

/** Connects to NATS. In Node the transport is TCP (with TLS when asked) unless `transport` is given. */
export function connect(options: ConnectionOptions = {}): Promise<NatsConnection> {
  return NatsConnectionImpl.connect({ ...options, transport: options.transport ?? tcpTransport() });
}
