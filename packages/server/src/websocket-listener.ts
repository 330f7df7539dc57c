import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { listen } from './listen.js';
import { afterWait } from './timer-delay.js';
import { secureContextOptions } from './tls/secure-context.js';
import { WebSocketConnection } from './websocket-connection.js';
import { checkUpgrade, refusalResponse } from './websocket-handshake.js';
import type { ResolvedWebSocketOptions } from './websocket-options.js';

/** A running WebSocket listener. */
export interface WebSocketListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * nats-server's `websocket {}` listener: HTTP(S) upgrades to WebSocket, then the NATS protocol in
 * binary frames. Each connection is handed to `accept` as a byte stream with a socket's face
 * (remote address, write back-pressure, end, destroy; `websocket-connection.ts`), so the client
 * connection code is the same as for TCP.
 */
export async function startWebSocketListener(
  options: ResolvedWebSocketOptions,
  /** `leaf`: the upgrade asked for `/leafnode`, nats-server's path for a leaf node, not a client. */
  accept: (socket: Socket, leaf: boolean) => void,
  /** A refused upgrade or broken framing, logged as nats-server logs it (`ip:port`, message). */
  reportError: (label: string, message: string) => void,
): Promise<WebSocketListener> {
  const { tls } = options;
  const server: HttpServer | HttpsServer = tls
    ? createHttpsServer({
        ...secureContextOptions(tls),
        requestCert: tls.verify,
        rejectUnauthorized: tls.verify,
        handshakeTimeout: options.handshakeTimeout,
      })
    : createHttpServer();
  const connections = new Set<WebSocketConnection>();
  // The upgrade must be complete within the handshake timeout, from the first byte on.
  const deadlines = new WeakMap<Socket, NodeJS.Timeout>();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    afterWait(
      options.handshakeTimeout,
      () => socket.destroy(),
      (deadline) => deadlines.set(socket, deadline),
    );
    socket.once('close', () => clearTimeout(deadlines.get(socket)));
  });
  server.on('request', (_request, response) => {
    response.writeHead(400).end('expected a WebSocket upgrade\n');
  });
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    clearTimeout(deadlines.get(socket));
    const label = `${socket.remoteAddress}:${socket.remotePort}`;
    const upgrade = checkUpgrade(request, options);
    if (!('response' in upgrade)) {
      reportError(label, `websocket handshake error: ${upgrade.reason}`);
      socket.end(refusalResponse(upgrade));
      return;
    }
    socket.write(upgrade.response);
    const connection = new WebSocketConnection(socket, head, {
      compression: upgrade.compression,
      unmasked: upgrade.unmasked,
      onProtocolError: (message) => reportError(label, `websocket read error: ${message}`),
    });
    connections.add(connection);
    connection.once('close', () => connections.delete(connection));
    accept(connection as unknown as Socket, upgrade.leaf);
  });
  const port = await listen(server, options.host, options.port);
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        for (const connection of connections) connection.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
