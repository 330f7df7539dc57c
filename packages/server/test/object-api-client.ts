/**
 * A client of the `$OBJ` object store API as a device would use it, over the official core
 * client: publish and request only.
 */
import { createInbox, nuid } from '@nats-io/transport-node';
import type { OfficialConnection } from './official-connection.js';

export type Json = Record<string, unknown>;

export async function requestJson(
  nc: OfficialConnection,
  subject: string,
  body?: unknown,
  payload?: Uint8Array | string,
): Promise<Json> {
  const data = payload ?? (body === undefined ? '' : JSON.stringify(body));
  const reply = await nc.request(subject, data, { timeout: 5_000 });
  return reply.json<Json>();
}

const encodedName = (name: string) => Buffer.from(name, 'utf8').toString('base64url');

/** The announcement of an upload. */
export function announcement(bucket: string, name: string, data: Uint8Array, chunkSize: number) {
  return {
    name,
    bucket,
    nonce: nuid.next(),
    chunks: Math.ceil(data.length / chunkSize),
    size: data.length,
  };
}

export function splitChunks(data: Uint8Array, chunkSize: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += chunkSize) {
    chunks.push(data.subarray(at, at + chunkSize));
  }
  return chunks;
}

/**
 * The server-assembled flow: the metadata, the chunks published, the last one requested; returns
 * the answer to the last message (the ObjectInfo or an error).
 */
export async function serverPut(
  nc: OfficialConnection,
  bucket: string,
  name: string,
  data: Uint8Array,
  chunkSize = 128 * 1024,
): Promise<Json> {
  const meta = announcement(bucket, name, data, chunkSize);
  const infoSubject = `$OBJ.${bucket}.info.${encodedName(name)}`;
  if (data.length === 0) return requestJson(nc, infoSubject, meta);
  nc.publish(infoSubject, JSON.stringify(meta));
  const chunks = splitChunks(data, chunkSize);
  const subject = `$OBJ.${bucket}.chunks.${meta.nonce}`;
  for (const chunk of chunks.slice(0, -1)) nc.publish(subject, chunk);
  return requestJson(nc, subject, undefined, chunks.at(-1));
}

export interface ServerGet {
  info: Json;
  data: Uint8Array;
  endDigest: string | undefined;
  flowControlRequests: number;
}

/** A get: the ObjectInfo answered, the chunks to a deliver subject, flow control answered. */
export async function serverGet(
  nc: OfficialConnection,
  bucket: string,
  name: string,
): Promise<ServerGet> {
  const deliver = createInbox();
  const parts: Uint8Array[] = [];
  let flowControlRequests = 0;
  const sub = nc.subscribe(deliver);
  const ended = (async () => {
    for await (const m of sub) {
      if (m.headers?.code === 100) {
        flowControlRequests++;
        m.respond();
        continue;
      }
      const end = m.headers?.get('Nats-Obj-End');
      if (end !== undefined && m.data.length === 0 && m.headers?.has('Nats-Obj-End')) {
        sub.unsubscribe();
        return end;
      }
      parts.push(m.data);
    }
    return undefined;
  })();
  const info = await requestJson(nc, `$OBJ.${bucket}`, { name, deliver_subject: deliver });
  if (info.code) {
    sub.unsubscribe();
    return { info, data: new Uint8Array(0), endDigest: undefined, flowControlRequests };
  }
  const endDigest = await ended;
  return { info, data: Buffer.concat(parts), endDigest, flowControlRequests };
}
