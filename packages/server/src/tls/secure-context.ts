import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import { ServerError } from '../errors.js';
import type { ResolvedTlsOptions } from '../options.js';
import { pem } from '../pem.js';
import { opensslCiphers } from './cipher-suites.js';

/**
 * The certificate, key, CA, cipher suites and lowest version of a `tls {}` block, in node:tls's
 * terms: for the HTTPS monitoring server, whose node:https takes options, not a context.
 */
export function secureContextOptions(tls: ResolvedTlsOptions): SecureContextOptions {
  const { ciphers, tls13Only } = opensslCiphers(tls.cipherSuites);
  return {
    cert: pem(tls.cert),
    key: pem(tls.key),
    ca: tls.ca && pem(tls.ca),
    ciphers,
    // Go's server picks the suite from its own order (PreferServerCipherSuites), so do we.
    honorCipherOrder: true,
    minVersion: tls.minVersion === '1.3' || tls13Only ? 'TLSv1.3' : 'TLSv1.2',
  };
}

/** The client port's TLS context; a bad certificate, key or suite is an INVALID_OPTION. */
export function secureContextFor(tls: ResolvedTlsOptions): SecureContext {
  try {
    return createSecureContext(secureContextOptions(tls));
  } catch (error) {
    throw new ServerError('INVALID_OPTION', `tls: ${(error as Error).message}`, { cause: error });
  }
}
