/**
 * The errors of the JetStream client, named as @nats-io/jetstream names them so code that
 * catches them keeps working after a change of import. A failed API call is a
 * JetStreamApiError that keeps the server's HTTP-like status and its JetStream err_code.
 */
import {
  type ApiError,
  type ApiErrorObject,
  type JsErrorEntry,
  jsErrorByCode,
  jsErrors,
} from '@slipstream/jsapi';

/** A JetStream failure that is not an API error (a malformed reply, a misuse). */
export class JetStreamError extends Error {
  override readonly name: string = 'JetStreamError';
}

/**
 * A status message that ended a pull with a problem, e.g. `409 Consumer Deleted`,
 * `409 Exceeded MaxWaiting`, `400 Bad Request`; `code` is the status code.
 */
export class JetStreamStatusError extends JetStreamError {
  override readonly name = 'JetStreamStatusError';
  readonly code: number;

  constructor(message: string, code: number, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** JetStream is not enabled for the account, or no server answers the JetStream API. */
export class JetStreamNotEnabled extends Error {
  override readonly name = 'JetStreamNotEnabled';
}

/** The err_codes nats.js gives names to. */
export const JetStreamApiCodes = {
  ConsumerNotFound: jsErrors.JSConsumerNotFoundErr.err_code,
  StreamNotFound: jsErrors.JSStreamNotFoundErr.err_code,
  JetStreamNotEnabledForAccount: jsErrors.JSNotEnabledForAccountErr.err_code,
  StreamWrongLastSequence: jsErrors.JSStreamWrongLastSequenceErrF.err_code,
  NoMessageFound: jsErrors.JSNoMessageFoundErr.err_code,
} as const;

/**
 * An error answered by the JetStream API (or in a PubAck). As in nats.js, `code` is the
 * JetStream err_code (10059 for "stream not found") and `status` the HTTP-like code (404).
 */
export class JetStreamApiError extends Error {
  override readonly name: string = 'JetStreamApiError';
  readonly #error: Required<ApiErrorObject>;

  constructor(error: ApiErrorObject, options?: ErrorOptions) {
    super(error.description ?? `JetStream API error ${error.code}`, options);
    this.#error = {
      code: error.code,
      err_code: error.err_code ?? 0,
      description: error.description ?? '',
    };
  }

  /** The JetStream err_code, e.g. 10059. */
  get code(): number {
    return this.#error.err_code;
  }

  /** The HTTP-like status, e.g. 404. */
  get status(): number {
    return this.#error.code;
  }

  /** The error object as the server sent it: `{code, err_code, description}`. */
  apiError(): Required<ApiErrorObject> {
    return { ...this.#error };
  }

  /** The catalog entry of the err_code (undefined for a code newer than the catalog). */
  get entry(): JsErrorEntry | undefined {
    return jsErrorByCode(this.#error.err_code);
  }

  /** True when this is the given catalog entry, e.g. `err.is(jsErrors.JSStreamNotFoundErr)`. */
  is(entry: JsErrorEntry): boolean {
    return this.#error.err_code === entry.err_code;
  }
}

export class StreamNotFoundError extends JetStreamApiError {
  override readonly name = 'StreamNotFoundError';
}

export class ConsumerNotFoundError extends JetStreamApiError {
  override readonly name = 'ConsumerNotFoundError';
}

/** True for the error of a message lookup that found nothing (err_code 10037). */
export function isMessageNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.NoMessageFound;
}

/** The error to throw for an API error: the named subclass for the codes nats.js names. */
export function fromApiError(error: ApiError): Error {
  const object = error.toJSON();
  switch (error.errCode) {
    case JetStreamApiCodes.StreamNotFound:
      return new StreamNotFoundError(object, { cause: error });
    case JetStreamApiCodes.ConsumerNotFound:
      return new ConsumerNotFoundError(object, { cause: error });
    case JetStreamApiCodes.JetStreamNotEnabledForAccount:
      return new JetStreamNotEnabled(error.message, {
        cause: new JetStreamApiError(object, { cause: error }),
      });
    default:
      return new JetStreamApiError(object, { cause: error });
  }
}

/** A stream or consumer name the server would refuse (empty, with `.`, `*`, `>`, spaces...). */
export class InvalidNameError extends Error {
  override readonly name = 'InvalidNameError';
}

/**
 * What `lookUp` (a consumer info) says of a consumption that stopped hearing from the server:
 * the ConsumerNotFoundError or StreamNotFoundError it fails with, else undefined (the consumer
 * is there, or the server could not tell).
 */
export async function missingResource(lookUp: () => Promise<unknown>): Promise<Error | undefined> {
  try {
    await lookUp();
    return undefined;
  } catch (error) {
    return error instanceof ConsumerNotFoundError || error instanceof StreamNotFoundError
      ? error
      : undefined;
  }
}
