import { isIP, type Socket } from 'node:net';
import { type SecureContext, TLSSocket, connect as tlsConnect } from 'node:tls';
import { pem } from '../pem.js';

/** What the dialling side of a route or leaf connection shows and checks. */
export interface DialTlsOptions {
  ca?: string | Uint8Array;
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  insecure?: boolean;
}

/**
 * The accepting side of a TLS route or leaf connection: a server handshake over `socket` with our
 * context, asking for (and requiring) a certificate our CA signed when `verify`.
 */
export function acceptServerTls(
  socket: Socket,
  context: SecureContext,
  verify: boolean,
  timeout: number,
): Promise<TLSSocket> {
  const secure = new TLSSocket(socket, {
    isServer: true,
    secureContext: context,
    requestCert: verify,
    rejectUnauthorized: verify,
  });
  return handshake(secure, 'secure', timeout, socket);
}

/**
 * The dialling side: a TLS client handshake over `socket`, showing `cert` and checking the other
 * server's certificate against `ca` (the system's CAs without one) and `hostname`, unless
 * `insecure`.
 */
export function dialServerTls(
  socket: Socket,
  tls: DialTlsOptions,
  hostname: string,
  timeout: number,
): Promise<TLSSocket> {
  const secure = tlsConnect({
    socket,
    ...(isIP(hostname) ? {} : { servername: hostname }),
    ca: tls.ca === undefined ? undefined : pem(tls.ca),
    cert: tls.cert === undefined ? undefined : pem(tls.cert),
    key: tls.key === undefined ? undefined : pem(tls.key),
    rejectUnauthorized: !tls.insecure,
    // Node checks the name (an IP address against the certificate's IP SANs, as Go's
    // crypto/tls does) unless told not to.
    ...(tls.insecure ? { checkServerIdentity: () => undefined } : {}),
  });
  return handshake(secure, 'secureConnect', timeout, socket);
}

/** Resolves with `secure` once its handshake is done; on an error or after `timeout`, closes both. */
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
