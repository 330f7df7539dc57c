import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { listen } from './listen.js';
import { afterWait } from './timer-delay.js';
import { secureContextOptions } from './tls/secure-context.js';
import type { ResolvedWebSocketOptions } from './websocket-options.js';

/** The path a leaf node's upgrade asks for (nats-server's leafNodeWSPath). */
const LEAF_NODE_PATH = '/leafnode';

/** A running WebSocket listener. */
export interface WebSocketListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * nats-server's `websocket {}` listener: HTTP(S) upgrades to WebSocket, then the NATS protocol in
 * binary frames. Each connection is handed to `accept` as a byte stream with a socket's face
 * (remote address, write back-pressure, end, destroy), so the client connection code is the same
 * as for TCP. Origins are checked as nats-server does: a request without an Origin header (not a
 * browser) always passes.
 */
export async function startWebSocketListener(
  options: ResolvedWebSocketOptions,
  /** `leaf`: the upgrade asked for `/leafnode`, nats-server's path for a leaf node, not a client. */
  accept: (socket: Socket, leaf: boolean) => void,
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
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: options.compression,
  });
  // The upgrade must be complete within the handshake timeout, from the first byte on.
  const deadlines = new WeakMap<Duplex, NodeJS.Timeout>();
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
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    clearTimeout(deadlines.get(socket));
    const refusal = originRefusal(request, options);
    if (refusal !== undefined) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Length: ${refusal.length}\r\n\r\n${refusal}`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const stream = createWebSocketStream(ws);
      // Once the WebSocket is closed, so is the stream, whether or not anyone reads its end.
      ws.once('close', () => stream.destroy());
      // What the connection reads off a TCP socket; Nagle does not apply to a WebSocket stream.
      Object.assign(stream, {
        remoteAddress: request.socket.remoteAddress,
        remotePort: request.socket.remotePort,
        setNoDelay: () => stream,
      });
      const path = new URL(request.url ?? '/', 'http://upgrade').pathname;
      accept(stream as unknown as Socket, path === LEAF_NODE_PATH);
    });
  });
  const port = await listen(server, options.host, options.port);
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Why the request's Origin is not allowed, or undefined when it is. */
function originRefusal(
  request: IncomingMessage,
  options: ResolvedWebSocketOptions,
): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined || (!options.sameOrigin && options.allowedOrigins.length === 0)) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'invalid origin';
  }
  const scheme = options.tls ? 'https:' : 'http:';
  if (options.sameOrigin) {
    const own = new URL(`${scheme}//${request.headers.host ?? ''}`);
    if (url.protocol !== own.protocol || url.host !== own.host) return 'not same origin';
  }
  if (options.allowedOrigins.length > 0) {
    const allowed = options.allowedOrigins.some((entry) => {
      const permitted = new URL(entry);
      return permitted.protocol === url.protocol && permitted.host === url.host;
    });
    if (!allowed) return 'origin not allowed';
  }
  return undefined;
}
