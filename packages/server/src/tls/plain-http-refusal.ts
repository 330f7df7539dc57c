import { createServer, type Server, type Socket } from 'node:net';
import { firstBytes } from '../tls-sniff.js';

/** How long a new connection may stay silent before it is left to the HTTPS server as it is. */
const FIRST_BYTES_WAIT_MS = 2_000;

/** The record-header starts Go's net/http takes for a plain HTTP request on its HTTPS port. */
const HTTP_REQUEST_STARTS = ['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO'];

const PLAIN_HTTP_ANSWER =
  'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/**
 * A listener in front of `https` that answers a plain HTTP request as nats-server's https_port
 * (Go's net/http) does, `400 Bad Request` and a line saying why, then closes; node:https would
 * close without a word. Every other connection (a TLS handshake, or anything else) goes to
 * `https` as it came. `destroyAll` ends every connection it accepted, for a shutdown: its own
 * close waits for them, and a socket handed to TLS reports no close of its own.
 */
export function refusingPlainHttp(https: Server): {
  listener: Server;
  destroyAll(): void;
} {
  const accepted = new Set<Socket>();
  const listener = createServer(async (socket) => {
    accepted.add(socket);
    socket.once('close', () => accepted.delete(socket));
    const first = await firstBytes(socket, FIRST_BYTES_WAIT_MS);
    if (socket.destroyed) return;
    if (first === 'plain' && looksLikeHttpRequest(socket)) {
      socket.end(PLAIN_HTTP_ANSWER);
      return;
    }
    https.emit('connection', socket);
  });
  return {
    listener,
    destroyAll: () => {
      for (const socket of accepted) socket.destroy();
    },
  };
}

/** Peeks at the first bytes firstBytes put back (they stay for whoever reads next). */
function looksLikeHttpRequest(socket: Socket): boolean {
  const chunk = socket.read() as Buffer | null;
  if (chunk === null) return false;
  socket.unshift(chunk);
  return HTTP_REQUEST_STARTS.includes(chunk.subarray(0, 5).toString('latin1'));
}
