import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/** What a client's finished TLS handshake settled, kept for the life of the connection. */
export interface TlsSession {
  /** The negotiated version without its prefix: `1.3`. */
  readonly version: string;
  /** The cipher suite's IANA name. */
  readonly cipherSuite: string;
  /** The client's certificate, when it sent one. */
  readonly peerCertificate: X509Certificate | undefined;
  /** What OpenSSL found verifying that certificate; read only under `verify`, else null. */
  readonly verifyError: Error | null;
}

/**
 * Reads the session off the socket. Call it in the socket's 'secure' event and nowhere else: the
 * SSL object is alive there, while after a reset Node 20 can emit 'close' on a TLSSocket whose
 * handle still points at an SSL it has just freed, and any getProtocol()/getCipher()/
 * getPeerX509Certificate() then dies with SIGSEGV (SSL_get_version on a null SSL) and takes the
 * whole server down. Everything later reads this copy instead of the socket.
 */
export function readTlsSession(socket: TLSSocket, { verify }: { verify: boolean }): TlsSession {
  return {
    version: (socket.getProtocol() ?? '').replace(/^TLSv/, ''),
    cipherSuite: socket.getCipher()?.standardName ?? '',
    peerCertificate: socket.getPeerX509Certificate(),
    verifyError: verify ? verifyError(socket) : null,
  };
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
