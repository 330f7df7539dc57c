import type { Socket } from 'node:net';
import { pem } from '../pem.js';
import type { RemoteTlsOptions } from './leaf-options.js';

/** nats-server's path that tells its WebSocket listener a leaf node, not a client, is upgrading. */
const LEAF_PATH = '/leafnode';

/**
 * A leaf connection to a hub's WebSocket port (a `ws://` or `wss://` remote, nats-server's
 * leafNodeSolicitWSConnection): TLS first for wss, the HTTP upgrade on `/leafnode`, then the
 * leaf protocol in binary frames, masked as a client's. Resolves with the frames as a byte
 * stream, standing in for a socket (its peer's address copied onto it, as /leafz shows it).
 */
export async function openLeafWebSocket(
  url: URL,
  tls: RemoteTlsOptions | undefined,
  timeout: number,
): Promise<Socket> {
  // Loaded only for a ws remote, as the WebSocket listener loads it only when configured.
  const { WebSocket, createWebSocketStream } = await import('ws');
  const secure = url.protocol === 'wss:';
  const target = `${secure ? 'wss' : 'ws'}://${url.host}${LEAF_PATH}`;
  const ws = new WebSocket(target, {
    perMessageDeflate: false,
    handshakeTimeout: timeout,
    ...(secure
      ? {
          ca: tls?.ca === undefined ? undefined : pem(tls.ca),
          cert: tls?.cert === undefined ? undefined : pem(tls.cert),
          key: tls?.key === undefined ? undefined : pem(tls.key),
          rejectUnauthorized: !tls?.insecure,
        }
      : {}),
  });
  // The stream is made before the upgrade completes: the hub's INFO can come in the same read
  // as its 101 answer, and a message nobody listens to yet would be lost.
  const stream = createWebSocketStream(ws);
  // Until it is a leaf connection's, the stream's copy of a failed upgrade's error is reported
  // by the rejection below.
  const quiet = () => {};
  stream.on('error', quiet);
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      stream.destroy();
      reject(error);
    };
    ws.once('open', () => {
      ws.off('error', failed);
      resolve();
    });
    ws.once('error', failed);
  });
  stream.off('error', quiet);
  const socket = (ws as unknown as { _socket: Socket })._socket;
  Object.defineProperties(stream, {
    remoteAddress: { value: socket.remoteAddress },
    remotePort: { value: socket.remotePort },
  });
  return stream as unknown as Socket;
}
