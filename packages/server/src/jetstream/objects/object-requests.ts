/**
 * Requests to `$OBJ.<bucket>`: list, info, get and delete. The body says what is asked: an
 * explicit `op` anywhere; without it an empty body or one without `name` lists, `name` with
 * `deliver_subject` gets, `name` alone is info. A delete is never inferred. Every request with a
 * reply subject is answered, with the result or an ObjectApiError's JSON.
 */
import { isValidPublishSubject } from '@slipstream/protocol';
import type { InternalMessage } from '../../internal-client.js';
import { type BucketLayout, bucketLayout } from './bucket-layout.js';
import { answerRefusal, type ObjectApiHost } from './object-api-host.js';
import type { DeliveryTarget } from './object-delivery.js';
import { ObjectApiError } from './object-errors.js';
import {
  checkName,
  deletedRecord,
  type ObjectRecord,
  objectInfo,
  parseJsonObject,
} from './object-meta.js';
import { listRecords, purgeChunks, putRecord, readRecord } from './object-records.js';

const OPS = ['list', 'info', 'get', 'delete'] as const;
type Op = (typeof OPS)[number];

interface ObjectRequest {
  readonly op: Op;
  readonly name: string;
  readonly deliverSubject: string;
}

/** Reads a request body into what it asks. */
export function readRequest(payload: Uint8Array): ObjectRequest {
  const body = payload.length === 0 ? {} : parseJsonObject(payload);
  const { op, name, deliver_subject: deliverSubject } = body;
  if (op !== undefined && typeof op !== 'string') {
    throw new ObjectApiError('bad_request', 'op must be a string');
  }
  if (op !== undefined && !(OPS as readonly string[]).includes(op)) {
    throw new ObjectApiError('unknown_op', `unknown op '${op}': expected one of ${OPS.join(', ')}`);
  }
  if (deliverSubject !== undefined && typeof deliverSubject !== 'string') {
    throw new ObjectApiError('bad_request', 'deliver_subject must be a string');
  }
  const asked = (op as Op | undefined) ?? inferredOp(name, deliverSubject);
  if (asked === 'list') return { op: asked, name: '', deliverSubject: '' };
  const checkedName = checkName(name);
  if (asked === 'get' && (!deliverSubject || !isValidPublishSubject(deliverSubject))) {
    throw new ObjectApiError('bad_request', 'get needs a deliver_subject without wildcards');
  }
  return { op: asked, name: checkedName, deliverSubject: deliverSubject ?? '' };
}

function inferredOp(name: unknown, deliverSubject: string | undefined): Op {
  if (name === undefined) {
    if (deliverSubject !== undefined) throw new ObjectApiError('bad_request', 'get needs a name');
    return 'list';
  }
  return deliverSubject === undefined ? 'info' : 'get';
}

export class ObjectRequests {
  constructor(
    private readonly host: ObjectApiHost,
    private readonly deliver: (target: DeliveryTarget) => void,
  ) {}

  handle(bucket: string, message: InternalMessage): void {
    const reply = message.reply;
    this.#answer(bucket, message.payload).then(
      (body) => this.host.writer.answer(reply, body),
      (error: unknown) => answerRefusal(this.host, reply, error),
    );
  }

  async #answer(bucket: string, payload: Uint8Array): Promise<unknown> {
    const request = readRequest(payload);
    const layout = bucketLayout(this.host.account, bucket);
    switch (request.op) {
      case 'list':
        return { bucket, objects: listRecords(layout).map(objectInfo) };
      case 'info':
        return objectInfo(this.#resolve(layout, request.name).record);
      case 'get': {
        const target = this.#resolve(layout, request.name);
        if (target.record.options?.link) {
          throw new ObjectApiError('bad_request', `'${request.name}' is a link to a bucket`);
        }
        // The ObjectInfo is answered first; the chunks start on a later turn.
        this.deliver({ ...target, deliverSubject: request.deliverSubject });
        return objectInfo(target.record);
      }
      case 'delete':
        return this.#delete(layout, request.name);
    }
  }

  /** The object `name` names, a link followed to its target (one level, as the official clients). */
  #resolve(layout: BucketLayout, name: string): { layout: BucketLayout; record: ObjectRecord } {
    const record = existing(layout, name);
    const link = record.options?.link as { bucket?: unknown; name?: unknown } | undefined;
    if (!link || typeof link.name !== 'string' || link.name === '') return { layout, record };
    const targetLayout =
      link.bucket === layout.bucket || typeof link.bucket !== 'string'
        ? layout
        : bucketLayout(this.host.account, link.bucket);
    return { layout: targetLayout, record: existing(targetLayout, link.name) };
  }

  async #delete(layout: BucketLayout, name: string): Promise<{ success: true }> {
    const record = existing(layout, name);
    await putRecord(this.host.writer, layout, deletedRecord(record));
    if (record.nonce) purgeChunks(layout, record.nonce);
    return { success: true };
  }
}

function existing(layout: BucketLayout, name: string): ObjectRecord {
  const record = readRecord(layout, name);
  if (!record || record.deleted) {
    throw new ObjectApiError(
      'object_not_found',
      `object '${name}' not found in bucket '${layout.bucket}'`,
    );
  }
  return record;
}
