import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import { ServerError } from '../errors.js';
import { pem } from '../pem.js';
import { opensslCiphers } from './cipher-suites.js';
import { ecdhCurve } from './curve-preferences.js';
import type { TlsOptions } from './tls-options.js';

/** What of a `tls {}` block goes into the TLS context, whichever listener it is for. */
export type ContextTlsOptions = Pick<
  TlsOptions,
  'cert' | 'key' | 'ca' | 'cipherSuites' | 'minVersion' | 'curvePreferences'
>;

/**
 * The certificate, key, CA, cipher suites, curves and lowest version of a `tls {}` block, in
 * node:tls's terms: for the HTTPS monitoring server and the WebSocket listener, whose node:https
 * takes options, not a context. nats-server builds all three listeners' TLS from one such block.
 */
export function secureContextOptions(tls: ContextTlsOptions): SecureContextOptions {
  const { ciphers, tls13Only } = opensslCiphers(tls.cipherSuites);
  return {
    cert: pem(tls.cert),
    key: pem(tls.key),
    ca: tls.ca && pem(tls.ca),
    ciphers,
    ecdhCurve: ecdhCurve(tls.curvePreferences),
    // Go's server picks the suite from its own order (PreferServerCipherSuites), so do we.
    honorCipherOrder: true,
    minVersion: tls.minVersion === '1.3' || tls13Only ? 'TLSv1.3' : 'TLSv1.2',
  };
}

/** The client port's TLS context; a bad certificate, key, suite or curve is an INVALID_OPTION. */
export function secureContextFor(tls: ContextTlsOptions): SecureContext {
  try {
    return createSecureContext(secureContextOptions(tls));
  } catch (error) {
    throw new ServerError('INVALID_OPTION', `tls: ${(error as Error).message}`, { cause: error });
  }
}
