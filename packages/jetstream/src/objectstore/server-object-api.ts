/**
 * The client of our server's `$OBJ.<bucket>` object store API (see @slipstream/server's README),
 * used by an object store opened with `serverApi`: plain requests on the core connection, no
 * JetStream API call. An answer with a `code` is the server's error, thrown as
 * `object-api-error.ts` makes it; a request nobody answers means the server has no such API.
 */
import { type NatsConnection, NoRespondersError } from '@slipstream/client';
import { base64UrlEncode, decodeJson, objectInfoSchema } from '@slipstream/jsapi';
import { JetStreamError } from '../errors.js';
import type { PurgeResponse } from '../stream-api.js';
import { infoFromWire } from './meta.js';
import { fromObjectApiAnswer, ObjectStoreApiError } from './object-api-error.js';
import type { ObjectInfo } from './types.js';

export type ApiAnswer = Record<string, unknown>;

export class ServerObjectApi {
  constructor(
    readonly nc: NatsConnection,
    readonly bucket: string,
    /** Milliseconds to wait for each answer. */
    readonly timeout: number,
  ) {}

  /** Where requests go: list, info, get and delete. */
  get subject(): string {
    return `$OBJ.${this.bucket}`;
  }

  /** Where an upload's metadata is announced (the last token is free: the body names the object). */
  infoSubject(name: string): string {
    return `$OBJ.${this.bucket}.info.${base64UrlEncode(new TextEncoder().encode(name))}`;
  }

  chunkSubject(nonce: string): string {
    return `$OBJ.${this.bucket}.chunks.${nonce}`;
  }

  /** Sends `body` (JSON, or bytes as they are) and returns the answer; an error answer throws. */
  async request(subject: string, body: unknown): Promise<ApiAnswer> {
    const payload = body instanceof Uint8Array ? body : JSON.stringify(body);
    let text: string;
    try {
      text = (await this.nc.request(subject, payload, { timeout: this.timeout })).string();
    } catch (error) {
      if (error instanceof NoRespondersError) {
        throw new JetStreamError(
          `no $OBJ object store API answers on ${subject}: it is Slipstream's server's own (nats-server has none)`,
          { cause: error },
        );
      }
      throw error;
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch (error) {
      throw new JetStreamError(`the $OBJ API answered with malformed JSON: ${text.slice(0, 80)}`, {
        cause: error,
      });
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw new JetStreamError(`the $OBJ API answered with ${text.slice(0, 80)}, not an object`);
    }
    const { code, description } = answer as ApiAnswer;
    if (typeof code === 'string') {
      throw fromObjectApiAnswer(code, typeof description === 'string' ? description : code);
    }
    return answer as ApiAnswer;
  }

  /** The object's info (a link followed to its target); null for none or a deleted one. */
  async info(name: string): Promise<ObjectInfo | null> {
    try {
      return objectInfoOf(await this.request(this.subject, { op: 'info', name }));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async list(): Promise<ObjectInfo[]> {
    const { objects } = await this.request(this.subject, { op: 'list' });
    if (!Array.isArray(objects)) throw new JetStreamError('the $OBJ list answer has no objects');
    return objects.map(objectInfoOf);
  }

  /** Deletes the object; the server does not say how many chunks it purged (`purged` is 0). */
  async delete(name: string): Promise<PurgeResponse> {
    await this.request(this.subject, { op: 'delete', name });
    return { success: true, purged: 0 };
  }
}

/** Whether `error` is the server's answer that an object is not there (or deleted). */
export const isNotFound = (error: unknown) =>
  error instanceof ObjectStoreApiError && error.code === 'object_not_found';

/**
 * Our ObjectInfo from the API's (the nonce under `nonce`, as nats.js's `nuid`). The API does not
 * tell the metadata's stream sequence: `revision` is 0.
 */
export function objectInfoOf(answer: unknown): ObjectInfo {
  const wire = answer as ApiAnswer;
  const withNuid = { ...wire, nuid: wire.nuid ?? wire.nonce };
  return infoFromWire(decodeJson(objectInfoSchema, JSON.stringify(withNuid)), 0, '');
}
