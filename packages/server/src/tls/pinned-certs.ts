import { createHash, type X509Certificate } from 'node:crypto';

/** A pin as nats-server's `pinned_certs` lists it: hex SHA-256 of the DER SubjectPublicKeyInfo. */
export const PIN_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Whether the client's certificate carries one of the pinned public keys. A client that sent no
 * certificate (verify off) is not pinned, as in nats-server.
 */
export function hasPinnedCertificate(
  certificate: X509Certificate | undefined,
  pins: ReadonlySet<string>,
): boolean {
  if (!certificate) return false;
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' });
  return pins.has(createHash('sha256').update(spki).digest('hex'));
}
