/**
 * JetStream in this server: the accounts' streams, the `$JS.API` subscription that feeds the
 * dispatcher, and the server-wide limits. It reaches the rest of the server only through its
 * internal client, like nats-server's JetStream.
 */
import type { InternalClient } from '../internal-client.js';
import type { Logger } from '../logger.js';
import type { ResolvedJetStreamOptions } from '../options.js';
import { Advisories } from './advisories.js';
import { ApiDispatcher } from './api/dispatch.js';
import { JsAccount } from './js-account.js';
import type { StreamHost } from './stream.js';

/** The account of every client until accounts arrive. */
export const GLOBAL_ACCOUNT = '$G';

export class JetStream {
  readonly accounts = new Map<string, JsAccount>();
  readonly advisories: Advisories;
  readonly #dispatcher: ApiDispatcher;

  constructor(
    readonly options: ResolvedJetStreamOptions,
    readonly client: InternalClient,
    readonly logger: Logger,
    /** The server's name, which advisories and /jsz report. */
    readonly serverName: string,
  ) {
    this.advisories = new Advisories(client, serverName, options.domain);
    const host: Omit<StreamHost, 'stream'> = {
      client,
      advisories: this.advisories,
      logger,
      domain: options.domain,
      resourcesExhausted: (storage) => this.#exhausted(storage),
    };
    this.accounts.set(GLOBAL_ACCOUNT, new JsAccount(GLOBAL_ACCOUNT, options, host, logger));
    this.#dispatcher = new ApiDispatcher(this);
  }

  /** Restores what the store directory holds, then starts answering the API. */
  start(): void {
    const { storeDir, maxMemory, maxFile, domain, syncInterval } = this.options;
    this.logger.info('Starting JetStream');
    this.logger.info(`  Store directory:  ${storeDir ?? '(none: memory only)'}`);
    this.logger.info(`  Max memory:       ${limitText(maxMemory)}`);
    this.logger.info(`  Max storage:      ${limitText(maxFile)}`);
    this.logger.info(
      `  Sync:             ${syncInterval === 'always' ? 'always' : `every ${syncInterval} ms`}`,
    );
    if (domain) this.logger.info(`  Domain:           ${domain}`);
    for (const account of this.accounts.values()) account.recover();
    this.#dispatcher.start();
  }

  account(name: string = GLOBAL_ACCOUNT): JsAccount {
    return this.accounts.get(name)!;
  }

  async close(): Promise<void> {
    this.#dispatcher.stop();
    await Promise.all([...this.accounts.values()].map((account) => account.close()));
  }

  /** The server's budget for a storage type is spent (nats-server's limitsExceeded). */
  #exhausted(storage: 'memory' | 'file'): boolean {
    const limit = storage === 'memory' ? this.options.maxMemory : this.options.maxFile;
    if (limit < 0) return false;
    let used = 0;
    for (const account of this.accounts.values()) {
      const usage = account.usage();
      used += storage === 'memory' ? usage.memory : usage.storage;
    }
    return used >= limit;
  }
}

function limitText(bytes: number): string {
  return bytes < 0 ? 'unlimited' : `${bytes} bytes`;
}
