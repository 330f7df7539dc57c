/**
 * An object's metadata: the announcement a client publishes to start an upload, the record the
 * server stores (the official clients' JSON, with the nonce under `nuid` in their layout and
 * under `nonce` in the document's), and the ObjectInfo the API answers with.
 */
import { ObjectApiError } from './object-errors.js';

/** What the server keeps of an object, whichever layout it is read from. */
export interface ObjectRecord {
  name: string;
  bucket: string;
  nonce: string;
  size: number;
  chunks: number;
  /** `SHA-256=<base64url>`; empty for a deleted object or a link. */
  digest: string;
  deleted: boolean;
  mtime: string;
  description?: string;
  headers?: Record<string, string[]>;
  metadata?: Record<string, string>;
  options?: Record<string, unknown>;
}

/** An announced upload, or a complete record when it already carries a digest. */
export interface Announcement {
  readonly record: ObjectRecord;
  /** Whether the client computed the digest itself (the official clients' flow). */
  readonly complete: boolean;
}

const MAX_NAME_BYTES = 1024;
/** A nonce is one subject token; nats.js's NUIDs are 22 characters of these. */
const NONCE = /^[A-Za-z0-9_-]{1,128}$/;

/** Refuses a name no object may have. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new ObjectApiError('invalid_name', 'object name is required');
  }
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) {
    throw new ObjectApiError('invalid_name', `object name is over ${MAX_NAME_BYTES} bytes`);
  }
  if (name.includes('..')) throw new ObjectApiError('invalid_name', "object name holds '..'");
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw new ObjectApiError('invalid_name', 'object name holds NUL or control bytes');
  }
  return name;
}

export function checkNonce(nonce: unknown): string {
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) {
    throw new ObjectApiError(
      'bad_request',
      'nonce must be 1 to 128 characters of letters, digits, - and _',
    );
  }
  return nonce;
}

/** A request or metadata body: a JSON object, or the error that says what is wrong with it. */
export function parseJsonObject(payload: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch (error) {
    throw new ObjectApiError('bad_request', `malformed JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ObjectApiError('bad_request', 'the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function count(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ObjectApiError('bad_request', `${field} must be a non-negative integer`);
  }
  return value;
}

function optionalOf<T>(
  body: Record<string, unknown>,
  field: string,
  isType: (value: unknown) => value is T,
  what: string,
): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isType(value)) throw new ObjectApiError('bad_request', `${field} must be ${what}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isHeaders = (v: unknown): v is Record<string, string[]> =>
  isObject(v) && Object.values(v).every((vs) => Array.isArray(vs) && vs.every(isString));
const isStringMap = (v: unknown): v is Record<string, string> =>
  isObject(v) && Object.values(v).every(isString);

/** Reads the metadata a client published to `$OBJ.<bucket>.info.<object>`. */
export function readAnnouncement(payload: Uint8Array, bucket: string): Announcement {
  const body = parseJsonObject(payload);
  const name = checkName(body.name);
  const announcedBucket = optionalOf(body, 'bucket', isString, 'a string');
  if (announcedBucket !== undefined && announcedBucket !== bucket) {
    throw new ObjectApiError(
      'bad_request',
      `bucket '${announcedBucket}' does not match the subject's '${bucket}'`,
    );
  }
  const digest = optionalOf(body, 'digest', isString, 'a string') ?? '';
  const record: ObjectRecord = {
    name,
    bucket,
    nonce: checkNonce(body.nonce ?? body.nuid),
    size: count(body, 'size'),
    chunks: count(body, 'chunks'),
    digest,
    deleted: false,
    mtime: optionalOf(body, 'mtime', isString, 'a string') ?? new Date().toISOString(),
  };
  const description = optionalOf(body, 'description', isString, 'a string');
  if (description) record.description = description;
  const headers = optionalOf(body, 'headers', isHeaders, 'an object of string arrays');
  if (headers) record.headers = headers;
  const metadata = optionalOf(body, 'metadata', isStringMap, 'an object of strings');
  if (metadata) record.metadata = metadata;
  const options = optionalOf(body, 'options', isObject, 'an object');
  if (options) record.options = options;
  return { record, complete: digest !== '' };
}

/** The stored metadata message, read leniently (links carry no size, chunks or digest). */
export function readStoredRecord(payload: Uint8Array): ObjectRecord | undefined {
  let body: Record<string, unknown>;
  try {
    body = parseJsonObject(payload);
  } catch {
    return undefined;
  }
  if (typeof body.name !== 'string' || typeof body.bucket !== 'string') return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const number = (v: unknown) => (typeof v === 'number' ? v : 0);
  const record: ObjectRecord = {
    name: body.name,
    bucket: body.bucket,
    nonce: text(body.nuid ?? body.nonce),
    size: number(body.size),
    chunks: number(body.chunks),
    digest: text(body.digest),
    deleted: body.deleted === true,
    mtime: text(body.mtime),
  };
  if (isString(body.description) && body.description) record.description = body.description;
  if (isHeaders(body.headers)) record.headers = body.headers;
  if (isStringMap(body.metadata)) record.metadata = body.metadata;
  if (isObject(body.options)) record.options = body.options;
  return record;
}

/** The JSON stored for `record`, in the field order and names the official clients write. */
export function storedJson(record: ObjectRecord, nonceField: 'nuid' | 'nonce'): string {
  const { name, description, headers, metadata, options, bucket, nonce } = record;
  return JSON.stringify({
    name,
    description,
    headers,
    metadata,
    options,
    bucket,
    [nonceField]: nonce,
    size: record.size,
    chunks: record.chunks,
    mtime: record.mtime,
    digest: record.digest,
    deleted: record.deleted,
  });
}

/** The ObjectInfo the API answers with. */
export function objectInfo(record: ObjectRecord): Record<string, unknown> {
  const { name, description, nonce, bucket, chunks, size, digest, deleted, headers, mtime } =
    record;
  return {
    name,
    description,
    nonce,
    bucket,
    chunks,
    size,
    digest,
    deleted,
    headers,
    mtime,
    metadata: record.metadata,
    options: record.options,
  };
}

/** The record of a deleted object, as the official clients write it. */
export function deletedRecord(record: ObjectRecord): ObjectRecord {
  return { ...record, deleted: true, size: 0, chunks: 0, digest: '' };
}
