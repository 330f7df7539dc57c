import type { TLSSocket } from 'node:tls';
import type { ResolvedTlsOptions } from '../options.js';
import { hasPinnedCertificate } from './pinned-certs.js';

/**
 * Why a client whose TLS handshake is over must not be served, or undefined. Node's OpenSSL
 * finishes a server handshake whatever the client certificate, and only a tls.Server reads the
 * verification result afterwards (into `authorized`); the client port wraps its sockets itself,
 * so the CA check of `verify` is made here, before the pins.
 */
export function handshakeRefusal(socket: TLSSocket, tls: ResolvedTlsOptions): string | undefined {
  if (tls.verify) {
    const error = verifyError(socket);
    if (error) return `Client certificate not verified: ${error.message}`;
  }
  if (tls.pinnedCerts && !hasPinnedCertificate(socket, tls.pinnedCerts)) {
    return 'Client certificate not pinned';
  }
  return undefined;
}

/**
 * What OpenSSL found verifying the client certificate, as tls.Server reads it (the socket
 * handle's verifyError, not public API): fails closed should a Node version not have it.
 */
function verifyError(socket: TLSSocket): Error | null {
  const handle = (socket as unknown as { _handle?: { verifyError?: () => Error | null } })._handle;
  if (typeof handle?.verifyError !== 'function') {
    return new Error('this Node version does not expose the certificate verification result');
  }
  return handle.verifyError();
}
