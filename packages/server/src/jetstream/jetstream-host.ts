/**
 * What one account's JetStream offers the code that works for it (the API routes and their
 * dispatcher, a snapshot, a restore): `JetStream` is one. They receive it instead of importing
 * `jetstream.ts`, which imports them.
 */
import type { InternalClient } from '../internal-client.js';
import type { Logger } from '../logger.js';
import type { ResolvedJetStreamOptions } from '../options.js';
import type { Advisories } from './advisories.js';
import type { JsAccount } from './js-account.js';

export interface JetStreamHost {
  readonly options: ResolvedJetStreamOptions;
  /** A client in the account's subject space. */
  readonly client: InternalClient;
  readonly logger: Logger;
  readonly advisories: Advisories;
  /** The account this JetStream serves. */
  account(): JsAccount;
}
