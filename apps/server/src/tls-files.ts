import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TlsOptions } from '@slipstream/server';
import type { Settings } from './settings.js';

export type TlsSetupErrorCode = 'TLS_INCOMPLETE' | 'TLS_FILE_UNREADABLE' | 'TLS_FILE_INVALID';

/** TLS was asked for but its files are missing, unreadable or not what they should be. */
export class TlsSetupError extends Error {
  override readonly name = 'TlsSetupError';
  constructor(
    readonly code: TlsSetupErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when the settings ask for TLS: any TLS flag or a `tls {}` block, unless `--tls=false`. */
function tlsRequested(tls: Settings['tls']): boolean {
  return tls !== undefined && tls.enabled !== false;
}

/**
 * Reads the PEM files named by the TLS settings into the library's options, or undefined when TLS
 * is off. Each file is checked here so that a problem names the file and what it was meant to be,
 * rather than surfacing later as an anonymous OpenSSL error.
 */
export function readTlsFiles(tls: Settings['tls']): TlsOptions | undefined {
  if (!tls || !tlsRequested(tls)) return undefined;
  if (!tls.cert) {
    throw new TlsSetupError(
      'TLS_INCOMPLETE',
      'TLS needs a server certificate: give --tlscert or cert_file in the tls block',
    );
  }
  if (!tls.key) {
    throw new TlsSetupError(
      'TLS_INCOMPLETE',
      'TLS needs the private key of the server certificate: give --tlskey or key_file in the tls block',
    );
  }
  if ((tls.verify || tls.verifyAndMap) && !tls.ca) {
    throw new TlsSetupError(
      'TLS_INCOMPLETE',
      'TLS verify needs the CA that signs client certificates: give --tlscacert or ca_file in the tls block',
    );
  }
  const cert = readPem(tls.cert, 'server certificate');
  const key = readPem(tls.key, 'private key');
  const certificate = parse(tls.cert, 'server certificate', () => new X509Certificate(cert));
  const privateKey = parse(tls.key, 'private key', () => createPrivateKey(key));
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TlsSetupError(
      'TLS_FILE_INVALID',
      `the private key "${tls.key}" does not belong to the server certificate "${tls.cert}"`,
    );
  }
  let ca: string | undefined;
  if (tls.ca) {
    ca = readPem(tls.ca, 'CA certificate');
    parse(tls.ca, 'CA certificate', () => new X509Certificate(ca!));
  }
  // The rest of the block (verify, timeout, pins, suites …) the library checks itself.
  const { enabled: _enabled, cert: _cert, key: _key, ca: _ca, ...rest } = tls;
  return { ...rest, cert, key, ...(ca === undefined ? {} : { ca }), verify: tls.verify ?? false };
}

export function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    // Node's text is "ENOENT: no such file or directory, open '<file>'"; the file is named below.
    const reason = (error as Error).message.replace(/, \w+ '.*'$/s, '');
    throw new TlsSetupError(
      'TLS_FILE_UNREADABLE',
      `cannot read the TLS ${what} "${file}": ${reason}`,
      {
        cause: error,
      },
    );
  }
}

function parse<T>(file: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new TlsSetupError(
      'TLS_FILE_INVALID',
      `the TLS ${what} "${file}" is not a valid PEM ${what}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
