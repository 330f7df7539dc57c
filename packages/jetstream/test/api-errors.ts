import { expect } from 'vitest';
import { JetStreamApiError } from '../src/mod.js';

/** Awaits a rejection and checks it is a JetStreamApiError with the server's status and err_code. */
export async function expectApiError(
  promise: Promise<unknown>,
  status: number,
  errCode: number,
  type: abstract new (...args: never[]) => JetStreamApiError = JetStreamApiError,
): Promise<JetStreamApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  const apiError = error as JetStreamApiError;
  expect({ status: apiError.status, code: apiError.code }).toEqual({ status, code: errCode });
  expect(apiError.apiError()).toMatchObject({ code: status, err_code: errCode });
  return apiError;
}
