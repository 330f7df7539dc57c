import type { InternalClient } from '../../internal-client.js';
import type { Logger } from '../../logger.js';
import type { JsAccount } from '../js-account.js';
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
