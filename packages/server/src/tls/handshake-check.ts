import { hasPinnedCertificate } from './pinned-certs.js';
import type { ResolvedTlsOptions } from './tls-options.js';
import type { TlsSession } from './tls-session.js';

/**
 * Why a client whose TLS handshake is over must not be served, or undefined. Node's OpenSSL
 * finishes a server handshake whatever the client certificate, and only a tls.Server reads the
 * verification result afterwards (into `authorized`); the client port wraps its sockets itself,
 * so the CA check of `verify` is made here, before the pins.
 */
export function handshakeRefusal(session: TlsSession, tls: ResolvedTlsOptions): string | undefined {
  if (tls.verify && session.verifyError) {
    return `Client certificate not verified: ${session.verifyError.message}`;
  }
  if (tls.pinnedCerts && !hasPinnedCertificate(session.peerCertificate, tls.pinnedCerts)) {
    return 'Client certificate not pinned';
  }
  return undefined;
}
