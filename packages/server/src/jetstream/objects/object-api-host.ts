import type { InternalClient } from '../../internal-client.js';
import type { Logger } from '../../logger.js';
import type { JsAccount } from '../js-account.js';
import { asObjectApiError } from './object-errors.js';
import type { StreamWriter } from './stream-writer.js';

/**
 * What the parts of the object store API share: the account, its internal client (in the
 * account's subject space), the writer over it and the logger.
 */
export interface ObjectApiHost {
  readonly client: InternalClient;
  readonly account: JsAccount;
  readonly writer: StreamWriter;
  readonly logger: Logger;
}

/** Answers `reply` with why a request failed; a failure of the store is logged too. */
export function answerRefusal(
  host: ObjectApiHost,
  reply: string | undefined,
  error: unknown,
): void {
  const refusal = asObjectApiError(error);
  if (refusal.code === 'store_failed') host.logger.warn(`Object store: ${refusal.message}`);
  host.writer.answer(reply, refusal.toJSON());
}
