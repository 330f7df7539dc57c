import { encodeUtf8, isValidPublishSubject, isValidSubscribeSubject } from '@slipstream/protocol';
import * as z from 'zod';

/**
 * Name rules exactly as nats-server (stream and consumer names) and the official clients (KV
 * buckets and keys, object names) enforce them. Each check returns the broken rule as text, or
 * undefined when the name is valid, so callers can put the reason in their own error.
 */

/** JSMaxNameLen: stream and consumer names are limited to 255 bytes of UTF-8. */
export const MAX_NAME_BYTES = 255;

// Go's isValidName rejects these whitespace characters and the subject wildcards/separator; the
// create handlers additionally reject path separators because names become directory names.
const forbiddenInName = /[ \t\r\n\f.*>/\\]/;
const assetName = /^[^ \t\r\n\f.*>/\\]+$/;
const bucketName = /^[a-zA-Z0-9_-]+$/;
const keyName = /^[-/_=.a-zA-Z0-9]+$/;
const searchKey = /^[-/_=.a-zA-Z0-9*]*>?$/;

const utf8Length = (text: string) => encodeUtf8(text).length;

function assetNameProblem(what: string, name: string): string | undefined {
  if (name.length === 0) return `${what} name is required`;
  const bad = forbiddenInName.exec(name);
  if (bad) return `${what} name can not contain ${JSON.stringify(bad[0])}`;
  if (utf8Length(name) > MAX_NAME_BYTES) {
    return `${what} name is too long, maximum allowed is ${MAX_NAME_BYTES}`;
  }
  return undefined;
}

/** Why a stream name is invalid, or undefined when nats-server accepts it. */
export const streamNameProblem = (name: string) => assetNameProblem('stream', name);

/** Why a consumer (or durable) name is invalid, or undefined when nats-server accepts it. */
export const consumerNameProblem = (name: string) => assetNameProblem('consumer', name);

/** Why a KV or object store bucket name is invalid (`^[a-zA-Z0-9_-]+$`). */
export function bucketNameProblem(name: string): string | undefined {
  return bucketName.test(name) ? undefined : 'bucket name must match ^[a-zA-Z0-9_-]+$';
}

// Keys are subject tokens, so past the character rules a key must be a valid subject: after the
// regexes rule out whitespace and misplaced wildcards, that leaves only the empty-token rule.
const emptyToken = 'can not start or end with "." or contain ".."';

/** Why a KV key is invalid: `^[-/_=.a-zA-Z0-9]+$`, no leading or trailing `.`, no `..`. */
export function keyProblem(key: string): string | undefined {
  if (!keyName.test(key)) return 'key must match ^[-/_=.a-zA-Z0-9]+$';
  return isValidPublishSubject(key) ? undefined : `key ${emptyToken}`;
}

/** Why a KV watch/search key is invalid: like a key, plus `*` tokens and a trailing `>`. */
export function searchKeyProblem(key: string): string | undefined {
  if (key.length === 0 || !searchKey.test(key)) {
    return 'search key must match ^[-/_=.a-zA-Z0-9*]*>?$';
  }
  return isValidSubscribeSubject(key) ? undefined : `search key ${emptyToken}`;
}

/** Why an object store object name is invalid: any non-empty text (it is base64-encoded). */
export function objectNameProblem(name: string): string | undefined {
  return name.length === 0 ? 'object name is required' : undefined;
}

export const isValidStreamName = (name: string) => streamNameProblem(name) === undefined;
export const isValidConsumerName = (name: string) => consumerNameProblem(name) === undefined;
export const isValidBucketName = (name: string) => bucketNameProblem(name) === undefined;
export const isValidKey = (key: string) => keyProblem(key) === undefined;
export const isValidSearchKey = (key: string) => searchKeyProblem(key) === undefined;
export const isValidObjectName = (name: string) => objectNameProblem(name) === undefined;

const byteLimit = (what: string) => ({
  message: `${what} name is too long, maximum allowed is ${MAX_NAME_BYTES} bytes`,
});

/** zod rule for a stream name (also the JSON Schema pattern). */
export const streamNameSchema = z
  .string()
  .regex(assetName, 'stream name is required and can not contain \' \', ".", "*", ">", "/", "\\"')
  .refine((n) => utf8Length(n) <= MAX_NAME_BYTES, byteLimit('stream'));

/** zod rule for a consumer or durable name. */
export const consumerNameSchema = z
  .string()
  .regex(assetName, 'consumer name is required and can not contain \' \', ".", "*", ">", "/", "\\"')
  .refine((n) => utf8Length(n) <= MAX_NAME_BYTES, byteLimit('consumer'));

/** zod rule for a KV / object store bucket name. */
export const bucketNameSchema = z
  .string()
  .regex(bucketName, 'bucket name must match ^[a-zA-Z0-9_-]+$');
