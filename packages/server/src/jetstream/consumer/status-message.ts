/** The header-only messages a consumer sends: `NATS/1.0 <code> <description>` plus headers. */
import { encodeSubject } from '@slipstream/protocol';

const CRLF = '\r\n';

/** A reply without a body: a status line and optional headers. */
export interface StatusReply {
  code: number;
  description: string;
  headers?: [string, string | number][];
}

export function statusHeaders(
  code: number,
  description: string,
  headers: ReadonlyArray<readonly [string, string | number]> = [],
): Buffer {
  let block = `NATS/1.0 ${code} ${description}${CRLF}`;
  for (const [name, value] of headers) block += `${name}: ${value}${CRLF}`;
  // Subjects' bytes as received (an invalid byte is kept as it came), the rest UTF-8, as the
  // character a 400 description quotes from a bad request (pull-body.ts).
  const bytes = encodeSubject(`${block}${CRLF}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** An idle heartbeat: the last delivered consumer and stream sequences, and a stalled flow. */
export function idleHeartbeat(
  lastConsumerSeq: number,
  lastStreamSeq: number,
  stalledOn: string | undefined,
): Buffer {
  const headers: [string, string | number][] = [
    ['Nats-Last-Consumer', lastConsumerSeq],
    ['Nats-Last-Stream', lastStreamSeq],
  ];
  if (stalledOn) headers.push(['Nats-Consumer-Stalled', stalledOn]);
  return statusHeaders(100, 'Idle Heartbeat', headers);
}
