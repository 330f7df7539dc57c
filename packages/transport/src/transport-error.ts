export type TransportErrorCode =
  /** The peer could not be reached (refused, unreachable, DNS failure). */
  | 'CONNECTION_REFUSED'
  /** The connection or its TLS handshake did not complete in time. */
  | 'TIMEOUT'
  /** The server requires TLS but the caller disallowed it (`tls: null`) or the runtime cannot do it. */
  | 'TLS_REQUIRED'
  /** The caller requires TLS but the server does not offer it. */
  | 'TLS_UNAVAILABLE'
  /** The TLS handshake failed (bad certificate, protocol mismatch...). */
  | 'TLS_FAILED'
  /** The server's first bytes were not a NATS INFO line. */
  | 'BAD_GREETING'
  /** The URL's scheme is not one this transport speaks. */
  | 'UNSUPPORTED_URL'
  /** The connection failed or was reset after it was established. */
  | 'CONNECTION_LOST';

/** A failure to open or keep a transport connection; `cause` holds the runtime's own error. */
export class TransportError extends Error {
  readonly code: TransportErrorCode;

  constructor(code: TransportErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransportError';
    this.code = code;
  }
}
