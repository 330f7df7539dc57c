import { gzipSync } from 'node:zlib';
import { withHeaders } from './jetstream/shared/header-block.js';
import { snappyFramed } from './snappy-frame.js';

/**
 * A message the server sends compressed as its requester's `Accept-Encoding` asks (nats-server's
 * getAcceptEncoding, for trace events and system account answers): snappy or s2, gzip, anything
 * else sent as is and labelled `identity`, with its `Content-Encoding` header; no header when
 * nothing was asked.
 */
export function encodedFor(
  acceptEncoding: string | undefined,
  json: Uint8Array,
): { headers: Uint8Array | undefined; payload: Uint8Array } {
  const encoding = contentEncoding(acceptEncoding);
  if (encoding === undefined) return { headers: undefined, payload: json };
  const payload =
    encoding === 'gzip' ? gzipSync(json) : encoding === 'snappy' ? snappyFramed(json) : json;
  return { headers: withHeaders(undefined, [['Content-Encoding', encoding]]), payload };
}

function contentEncoding(accept: string | undefined): 'gzip' | 'snappy' | 'identity' | undefined {
  if (!accept) return undefined;
  const asked = accept.toLowerCase();
  if (asked.includes('snappy') || asked.includes('s2')) return 'snappy';
  if (asked.includes('gzip')) return 'gzip';
  return 'identity';
}
