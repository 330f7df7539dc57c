import { encodedFor } from './content-encoding.js';
import { goJson } from './monitoring/format.js';
import type { ServerIdentity } from './server-identity.js';
import { NATS_COMPATIBLE_VERSION } from './version.js';

/** What a trace event says about the server that sends it (nats-server's ServerInfo). */
export interface TraceServerInfo extends ServerIdentity {
  readonly seq: number;
  readonly time: string;
}

/** nats-server 2.11's capability flags: JetStream enabled, binary stream snapshots. */
const JETSTREAM_FLAGS = 0b11;

/**
 * The message a trace event goes out as: the JSON event (`server` first), compressed as the
 * traced message's `Accept-Encoding` asks (content-encoding.ts).
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
  return encodedFor(acceptEncoding, json);
}
