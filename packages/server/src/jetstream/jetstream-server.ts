/**
 * JetStream for the whole server: one `JetStream` per account that has it, each in its own
 * subject space with its own `$JS.API`, streams and limits, and the server-wide memory and file
 * budgets they share.
 */
import { type JsErrorEntry, jsErrors } from '@slipstream/jsapi';
import type { InternalClient } from '../internal-client.js';
import type { Logger } from '../logger.js';
import type { ResolvedJetStreamOptions } from '../options.js';
import type { JsAccountLimits } from './account-limits.js';
import { JetStream } from './jetstream.js';
import type { JsAccount } from './js-account.js';
import { BatchBudget } from './stream/atomic-batch.js';
import type { Stream } from './stream/stream.js';
import { streamInfo } from './stream/stream-info.js';

/** An account JetStream is enabled for: a client in its subject space and its limits. */
export interface JetStreamAccountSetup {
  readonly name: string;
  readonly client: InternalClient;
  readonly limits: JsAccountLimits;
}

export class JetStreamServer {
  /** Each enabled account's streams, by account name (what /jsz reports). */
  readonly accounts = new Map<string, JsAccount>();
  readonly #services: JetStream[] = [];
  /** Atomic batches open on the whole server, across accounts. */
  readonly #batchBudget: BatchBudget;

  constructor(
    readonly options: ResolvedJetStreamOptions,
    readonly logger: Logger,
    readonly serverName: string,
    enabled: readonly JetStreamAccountSetup[],
  ) {
    this.#batchBudget = new BatchBudget(options.atomicBatch);
    for (const setup of enabled) this.#add(setup);
  }

  #add({ name, client, limits }: JetStreamAccountSetup): JetStream {
    const js = new JetStream(
      this.options,
      client,
      this.logger,
      this.serverName,
      name,
      limits,
      (storage) => this.#exhausted(storage),
      this.#batchBudget,
    );
    this.#services.push(js);
    this.accounts.set(name, js.account());
    return js;
  }

  /** JetStream for an account added while the server runs (operator mode: a new account JWT). */
  enable(setup: JetStreamAccountSetup): void {
    this.#add(setup).start();
  }

  /** Restores what the store directory holds, then starts answering each account's API. */
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
    this.logger.info(`  Accounts:         ${[...this.accounts.keys()].join(', ') || '(none)'}`);
    for (const js of this.#services) js.start();
  }

  async close(): Promise<void> {
    await Promise.all(this.#services.map((js) => js.close()));
  }

  /**
   * A stream's config, created time and state as its API info gives them (what /jsz shows),
   * reached through the server so that monitoring need not load JetStream's code itself.
   */
  /** A leaf connection of `account` came up: its streams' mirrors and sources not running ask again. */
  leafConnected(account: string): void {
    for (const stream of this.accounts.get(account)?.streams.values() ?? []) stream.linkUp();
  }

  streamInfo(stream: Stream): ReturnType<typeof streamInfo> {
    return streamInfo(stream);
  }

  /** The server's budget for a storage type is spent (nats-server's limitsExceeded). */
  #exhausted(storage: 'memory' | 'file'): JsErrorEntry | undefined {
    const limit = storage === 'memory' ? this.options.maxMemory : this.options.maxFile;
    if (limit < 0) return undefined;
    let used = 0;
    for (const account of this.accounts.values()) {
      const usage = account.usage();
      used += storage === 'memory' ? usage.memory : usage.storage;
    }
    return used >= limit ? jsErrors.JSInsufficientResourcesErr : undefined;
  }
}

function limitText(bytes: number): string {
  return bytes < 0 ? 'unlimited' : `${bytes} bytes`;
}
