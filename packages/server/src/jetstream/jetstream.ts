/**
 * The account level of `jetstream/` (the files at its top: `jetstream-server.ts`, this file,
 * `js-account.ts`, `account-limits.ts`, `advisories.ts`, `disabled-api.ts`), over the rooms
 * `stream/`, `consumer/`, `snapshot/`, `api/`, `objects/`, `store/` and `shared/`.
 *
 * One account's JetStream: its streams (`JsAccount`), its advisories, and the `$JS.API`
 * subscription in the account's own subject space that feeds the dispatcher. It reaches the rest
 * of the server only through its internal client, like nats-server's JetStream; what the
 * accounts share (the server's limits, start and close) is `JetStreamServer`'s.
 */
import type { JsErrorEntry } from '@slipstream/jsapi';
import type { InternalClient } from '../internal-client.js';
import type { Logger } from '../logger.js';
import type { ResolvedJetStreamOptions } from '../options.js';
import { Advisories } from './advisories.js';
import { ApiDispatcher } from './api/dispatch.js';
import type { JetStreamHost } from './jetstream-host.js';
import { JsAccount, type JsAccountLimits } from './js-account.js';
import { ObjectApi } from './objects/object-api.js';
import type { BatchBudget } from './stream/atomic-batch.js';

export class JetStream implements JetStreamHost {
  readonly advisories: Advisories;
  readonly #account: JsAccount;
  readonly #dispatcher: ApiDispatcher;
  /** The `$OBJ` object store API of the account. */
  readonly objects: ObjectApi;

  constructor(
    readonly options: ResolvedJetStreamOptions,
    /** A client in the account's subject space. */
    readonly client: InternalClient,
    readonly logger: Logger,
    /** The server's name, which advisories and /jsz report. */
    readonly serverName: string,
    account: string,
    limits: JsAccountLimits,
    /** The server's own budget check for a storage type. */
    serverExhausted: (storage: 'memory' | 'file') => JsErrorEntry | undefined,
    batchBudget: BatchBudget,
  ) {
    this.advisories = new Advisories(client, serverName, options.domain, account);
    this.#account = new JsAccount(
      account,
      options,
      {
        client,
        advisories: this.advisories,
        logger,
        domain: options.domain,
        resourcesExhausted: serverExhausted,
        claims: (stream, message) => this.objects.claims(stream, message),
        batchBudget,
      },
      logger,
      limits,
    );
    this.#dispatcher = new ApiDispatcher(this);
    this.objects = new ObjectApi(client, this.#account, logger, options.objects);
  }

  /** Restores what the store directory holds for the account, then starts answering the API. */
  start(): void {
    this.#account.recover();
    this.#dispatcher.start();
    this.objects.start();
  }

  /** The account this JetStream serves. */
  account(): JsAccount {
    return this.#account;
  }

  async close(): Promise<void> {
    this.#dispatcher.stop();
    this.objects.stop();
    await this.#account.close();
  }
}
