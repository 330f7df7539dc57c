/**
 * An error answered by our server's `$OBJ` object store API (`{"code", "description"}`, see
 * @slipstream/server's README), for the codes that have no closer class: a bucket that is not
 * there is a StreamNotFoundError and a refused name an InvalidNameError, as on the JetStream
 * path; everything else (`count_mismatch`, `size_mismatch`, `chunk_too_large`, `nonce_in_use`,
 * `too_many_pending`, `store_failed`...) is this, its `code` the server's.
 */
import { jsErrors } from '@slipstream/jsapi';
import { InvalidNameError, JetStreamError, StreamNotFoundError } from '../errors.js';

export class ObjectStoreApiError extends JetStreamError {
  override readonly name = 'ObjectStoreApiError';

  constructor(
    /** The server's error code, e.g. `size_mismatch`. */
    readonly code: string,
    description: string,
  ) {
    super(description);
  }
}

/** The error to throw for an answer `{code, description}` of the `$OBJ` API. */
export function fromObjectApiAnswer(code: string, description: string): Error {
  switch (code) {
    case 'bucket_not_found': {
      const { code: status, err_code } = jsErrors.JSStreamNotFoundErr;
      return new StreamNotFoundError(
        { code: status, err_code, description },
        { cause: new ObjectStoreApiError(code, description) },
      );
    }
    case 'invalid_name':
      return new InvalidNameError(description, {
        cause: new ObjectStoreApiError(code, description),
      });
    default:
      return new ObjectStoreApiError(code, description);
  }
}
