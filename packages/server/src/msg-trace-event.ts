import { gzipSync } from 'node:zlib';
import { withHeaders } from './jetstream/header-block.js';
import { goJson } from './monitoring/format.js';
import { snappyFramed } from './snappy-frame.js';
import { NATS_COMPATIBLE_VERSION } from './version.js';

/** What a trace event says about the server that sends it (nats-server's ServerInfo). */
export interface TraceServerInfo {
  readonly name: string;
  readonly host: string;
  readonly id: string;
  readonly jetstream: boolean;
  readonly seq: number;
  readonly time: string;
}

/** nats-server 2.11's capability flags: JetStream enabled, binary stream snapshots. */
const JETSTREAM_FLAGS = 0b11;

/**
 * The message a trace event goes out as: the JSON event (`server` first), compressed as the
 * traced message's `Accept-Encoding` asks (nats-server's getCompressionType: snappy or s2,
 * gzip, anything else sent as is and labelled `identity`), with its `Content-Encoding` header.
 */
export function eventBody(
  server: TraceServerInfo,
  body: object,
  acceptEncoding: string | undefined,
): { headers: Uint8Array | undefined; payload: Uint8Array } {
  const { jetstream, seq, time, ...identity } = server;
  const json = Buffer.from(
    goJson(
      {
        server: {
          ...identity,
          ver: NATS_COMPATIBLE_VERSION,
          jetstream,
          flags: jetstream ? JETSTREAM_FLAGS : 0,
          seq,
          time,
        },
        ...body,
      },
      false,
    ),
  );
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
