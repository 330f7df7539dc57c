import { createHash } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { ResolvedWebSocketOptions } from './websocket-options.js';

/** The path a leaf node's upgrade asks for (nats-server's leafNodeWSPath). */
const LEAF_NODE_PATH = '/leafnode';
/** RFC 6455 §1.3: what the client's key is hashed with to prove the server speaks WebSocket. */
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/**
 * nats-server answers any permessage-deflate offer with no context takeover either way: every
 * message is compressed on its own, so neither side keeps a 32 KiB window per connection.
 */
const DEFLATE_RESPONSE =
  'permessage-deflate; server_no_context_takeover; client_no_context_takeover';
/** nats-server's header by which a peer (a leaf node) asks for unmasked frames both ways. */
const NO_MASKING_HEADER = 'nats-no-masking';

/** What an accepted upgrade settled. */
export interface AcceptedUpgrade {
  /** The 101 response to write before any frame. */
  response: string;
  /** permessage-deflate negotiated. */
  compression: boolean;
  /** The peer's frames come unmasked (it asked with Nats-No-Masking). */
  unmasked: boolean;
  /** The upgrade asked for `/leafnode`: a leaf node, not a client. */
  leaf: boolean;
}

/** Why an upgrade is refused: the HTTP status and nats-server's reason. */
export interface RefusedUpgrade {
  status: number;
  reason: string;
}

/**
 * The opening handshake's server side (RFC 6455 §4.2), checked as nats-server's wsUpgrade checks
 * it, in its order and words: method, Host, Upgrade, Connection, key, version, origin; then the
 * extensions it supports (compression, no masking).
 */
export function checkUpgrade(
  request: IncomingMessage,
  options: ResolvedWebSocketOptions,
): AcceptedUpgrade | RefusedUpgrade {
  const headers = request.headers;
  if (request.method !== 'GET') return { status: 405, reason: 'request method must be GET' };
  if (!headers.host) return { status: 400, reason: "'Host' missing in request" };
  if (!hasToken(headers.upgrade, 'websocket')) {
    return { status: 400, reason: "invalid value for header 'Upgrade'" };
  }
  if (!hasToken(headers.connection, 'upgrade')) {
    return { status: 400, reason: "invalid value for header 'Connection'" };
  }
  const key = headers['sec-websocket-key'];
  if (!key) return { status: 400, reason: 'key missing' };
  if (!hasToken(headers['sec-websocket-version'], '13')) {
    return { status: 400, reason: 'invalid version' };
  }
  const origin = originRefusal(request, options);
  if (origin !== undefined) return { status: 403, reason: `origin not allowed: ${origin}` };
  const compression = options.compression && offersDeflate(headers['sec-websocket-extensions']);
  const unmasked = headers[NO_MASKING_HEADER] === 'true';
  const accept = createHash('sha1')
    .update(key + ACCEPT_GUID)
    .digest('base64');
  const response =
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    `Sec-WebSocket-Accept: ${accept}\r\n` +
    (compression ? `Sec-WebSocket-Extensions: ${DEFLATE_RESPONSE}\r\n` : '') +
    (unmasked ? 'Nats-No-Masking: true\r\n' : '') +
    '\r\n';
  const leaf = new URL(request.url ?? '/', 'http://upgrade').pathname.startsWith(LEAF_NODE_PATH);
  return { response, compression, unmasked, leaf };
}

/** The HTTP answer to a refused upgrade, which then closes the connection. */
export function refusalResponse({ status, reason }: RefusedUpgrade): string {
  const body = `${reason}\n`;
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nSec-WebSocket-Version: 13\r\n` +
    `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** The header's comma-separated values include `token` (case-insensitive). */
function hasToken(header: string | string[] | undefined, token: string): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((value) =>
    value.split(',').some((part) => part.trim().toLowerCase() === token),
  );
}

/** The client offers permessage-deflate (whatever its parameters: the answer fixes them). */
function offersDeflate(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .some((extension) => extension.split(';')[0]!.trim().toLowerCase() === 'permessage-deflate');
}

/** Why the request's Origin is not allowed, or undefined when it is. */
function originRefusal(
  request: IncomingMessage,
  options: ResolvedWebSocketOptions,
): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined || (!options.sameOrigin && options.allowedOrigins.length === 0)) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'invalid origin';
  }
  const scheme = options.tls ? 'https:' : 'http:';
  if (options.sameOrigin) {
    const own = new URL(`${scheme}//${request.headers.host ?? ''}`);
    if (url.protocol !== own.protocol || url.host !== own.host) return 'not same origin';
  }
  if (options.allowedOrigins.length > 0) {
    const allowed = options.allowedOrigins.some((entry) => {
      const permitted = new URL(entry);
      return permitted.protocol === url.protocol && permitted.host === url.host;
    });
    if (!allowed) return 'origin not allowed';
  }
  return undefined;
}
