import { ServerError } from './errors.js';
import type { TlsOptions } from './tls/tls-options.js';

/** A WebSocket listener, as nats-server's `websocket {}` block; the NATS protocol in binary frames. */
export interface WebSocketOptions {
  /** Default: the client `host`. */
  host?: string;
  /** `0` (or `-1`) picks a free port. Required. */
  port: number;
  /** Plain `ws://`; without it a `tls` is required, as nats-server requires. */
  noTls?: boolean;
  /** TLS for `wss://` (PEM contents); `verify` asks for client certificates. */
  tls?: TlsOptions;
  /** permessage-deflate, for clients that ask for it. */
  compression?: boolean;
  /** Browsers only from the server's own origin (scheme, host and port of the request). */
  sameOrigin?: boolean;
  /** Browsers only from these origins (`https://app.example.com:8443`). */
  allowedOrigins?: string[];
  /** Milliseconds to complete the HTTP upgrade (and TLS handshake). Default 2000. */
  handshakeTimeout?: number;
}

export interface ResolvedWebSocketOptions {
  host: string;
  port: number;
  tls: (TlsOptions & { verify: boolean }) | undefined;
  compression: boolean;
  sameOrigin: boolean;
  allowedOrigins: string[];
  handshakeTimeout: number;
}

const DEFAULT_HANDSHAKE_TIMEOUT = 2_000;

export function resolveWebSocket(
  options: WebSocketOptions | undefined,
  defaultHost: string,
): ResolvedWebSocketOptions | undefined {
  if (!options) return undefined;
  const invalid = (message: string) => new ServerError('INVALID_OPTION', `websocket: ${message}`);
  const { port, tls } = options;
  if (!Number.isInteger(port) || port < -1 || port > 65535) {
    throw invalid(`port must be a port number, got ${port}`);
  }
  if (!options.noTls && !tls) throw invalid('needs tls, or noTls for plain ws://');
  if (options.noTls && tls) throw invalid('takes tls or noTls, not both');
  if (tls && (!tls.cert || !tls.key)) throw invalid('tls needs a cert and a key');
  if (tls?.verify && !tls.ca) throw invalid('tls verify needs a ca to check client certificates');
  const allowedOrigins = options.allowedOrigins ?? [];
  for (const origin of allowedOrigins) {
    if (!URL.canParse(origin)) throw invalid(`allowedOrigins: not a URL: ${origin}`);
  }
  const handshakeTimeout = options.handshakeTimeout || DEFAULT_HANDSHAKE_TIMEOUT;
  if (!Number.isFinite(handshakeTimeout) || handshakeTimeout <= 0) {
    throw invalid(`handshakeTimeout must be a positive number, got ${handshakeTimeout}`);
  }
  return {
    host: options.host ?? defaultHost,
    port: port === -1 ? 0 : port,
    tls: tls && { ...tls, verify: tls.verify ?? false },
    compression: options.compression ?? false,
    sameOrigin: options.sameOrigin ?? false,
    allowedOrigins,
    handshakeTimeout,
  };
}
