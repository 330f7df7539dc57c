import { isIP, type Socket } from 'node:net';
import { type SecureContext, TLSSocket, connect as tlsConnect } from 'node:tls';
import { pem } from '../pem.js';
import type { ResolvedClusterOptions } from './route-options.js';

type RouteTls = NonNullable<ResolvedClusterOptions['tls']>;

/**
 * The route port's side (nats-server's createRoute with cluster TLS): the handshake comes first,
 * before any INFO, and the other member must show a certificate our CA signed.
 */
export function acceptRouteTls(socket: Socket, context: SecureContext, tls: RouteTls) {
  const secure = new TLSSocket(socket, {
    isServer: true,
    secureContext: context,
    requestCert: true,
    rejectUnauthorized: true,
  });
  return handshake(secure, 'secure', tls.timeout, socket);
}

/**
 * The dialling side: a TLS client handshake at once, showing our certificate and checking the
 * member's against the CA and `hostname` (an IP address against its IP SANs), unless `insecure`.
 */
export function dialRouteTls(socket: Socket, tls: RouteTls, hostname: string) {
  const secure = tlsConnect({
    socket,
    ...(isIP(hostname) ? {} : { servername: hostname }),
    ca: pem(tls.ca),
    cert: pem(tls.cert),
    key: pem(tls.key),
    rejectUnauthorized: !tls.insecure,
    ...(tls.insecure ? { checkServerIdentity: () => undefined } : {}),
  });
  return handshake(secure, 'secureConnect', tls.timeout, socket);
}

function handshake(
  secure: TLSSocket,
  done: 'secure' | 'secureConnect',
  timeout: number,
  socket: Socket,
): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('TLS handshake timeout')), timeout);
    const fail = (error: Error) => {
      clearTimeout(timer);
      secure.destroy();
      socket.destroy();
      reject(error);
    };
    secure.once('error', fail);
    secure.once(done, () => {
      clearTimeout(timer);
      secure.off('error', fail);
      resolve(secure);
    });
  });
}
