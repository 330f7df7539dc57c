/**
 * The errors of the `$OBJ` object store API: a closed set of codes, each answered to the
 * request's reply subject as `{"code": "<code>", "description": "<text>"}`. A successful answer
 * never has a `code` field, so a client tells the two apart by it.
 */

export const objectErrorCodes = [
  /** Malformed JSON, a field of the wrong type, a missing field or an invalid nonce. */
  'bad_request',
  /** An `op` the API does not know. */
  'unknown_op',
  /** An object name that is empty, over 1,024 bytes, or holds `..`, NUL or control bytes. */
  'invalid_name',
  /** No stream `OBJ_<bucket>` in the account. */
  'bucket_not_found',
  /** Stream `OBJ_<bucket>` exists but captures neither layout's subjects. */
  'not_object_store',
  /** No such object, or it was deleted. */
  'object_not_found',
  /** Chunks for a nonce with no pending upload (never announced, finished or timed out). */
  'unknown_nonce',
  /** A second upload announced with a nonce already pending or already stored. */
  'nonce_in_use',
  /** A chunk over the account's max payload. */
  'chunk_too_large',
  /** The chunks do not add up to the announced count (too many, or the size reached early). */
  'count_mismatch',
  /** The chunks do not add up to the announced size. */
  'size_mismatch',
  /** The account already holds its maximum of pending uploads. */
  'too_many_pending',
  /** The stream refused a message (its limits, say); the description is JetStream's. */
  'store_failed',
] as const;

export type ObjectErrorCode = (typeof objectErrorCodes)[number];

export class ObjectApiError extends Error {
  constructor(
    readonly code: ObjectErrorCode,
    description: string,
  ) {
    super(description);
  }

  /** The answer's JSON body. */
  toJSON(): { code: ObjectErrorCode; description: string } {
    return { code: this.code, description: this.message };
  }
}

/** Any failure as the API reports it: an unexpected one (a damaged store, say) as store_failed. */
export function asObjectApiError(error: unknown): ObjectApiError {
  if (error instanceof ObjectApiError) return error;
  const description = error instanceof Error ? error.message : String(error);
  return new ObjectApiError('store_failed', description);
}
