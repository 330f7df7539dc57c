import { join } from 'node:path';
import { apiStatsLevel } from '../api-level.js';
import type { JetStreamServer } from '../jetstream/jetstream-server.js';
import type { JsAccount } from '../jetstream/js-account.js';
import type { ResolvedJetStreamOptions } from '../options.js';
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';
import { type Query, QueryError } from './query.js';

const DEFAULT_LIMIT = 1024;
const byName = (a: { name: string }, b: { name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
const NS_PER_MS = 1_000_000;
/**
 * An account's reserved memory and storage when its limits are unlimited (-1): nats-server
 * 2.9.10 writes the limit as an unsigned 64-bit number, so -1 reads as 2^64 - 1 and Go tools
 * that decode it into a uint64 expect that.
 */
const UNLIMITED_RESERVATION = 2n ** 64n - 1n;

/**
 * JetStream's settings as /jsz and /varz show them (nats-server's JetStreamConfig): the store
 * limits (-1: unlimited, where nats-server would show the default it computed), the store
 * directory and domain, and the sync mode in nats-server 2.10's fields.
 */
export function jetStreamConfig(options: ResolvedJetStreamOptions) {
  const { maxMemory, maxFile, storeDir, domain, syncInterval } = options;
  return {
    max_memory: maxMemory,
    max_storage: maxFile,
    ...(storeDir ? { store_dir: join(storeDir, 'jetstream') } : {}),
    ...(syncInterval === 'always'
      ? { sync_always: true }
      : { sync_interval: syncInterval * NS_PER_MS }),
    ...(domain ? { domain } : {}),
  };
}

/**
 * What the server's JetStream holds (nats-server's JetStreamStats): bytes used, bytes the
 * streams' max_bytes reserve, accounts, and API requests answered and failed. A standalone
 * server has no replicated (HA) assets.
 */
export function jetStreamStats(js: JetStreamServer) {
  let memory = 0;
  let storage = 0;
  let reservedMemory = 0;
  let reservedStorage = 0;
  let total = 0;
  let errors = 0;
  for (const account of js.accounts.values()) {
    const usage = account.usage();
    memory += usage.memory;
    storage += usage.storage;
    total += account.api.total;
    errors += account.api.errors;
    for (const stream of account.streams.values()) {
      const reserved = Math.max(0, stream.config.max_bytes ?? 0);
      if (stream.config.storage === 'memory') reservedMemory += reserved;
      else reservedStorage += reserved;
    }
  }
  return {
    memory,
    storage,
    reserved_memory: reservedMemory,
    reserved_storage: reservedStorage,
    accounts: js.accounts.size,
    ha_assets: 0,
    api: { ...apiStatsLevel(), total, errors },
  };
}

/** What a server without JetStream reports: zeros, and `disabled`. */
const DISABLED = {
  disabled: true,
  config: { max_memory: 0, max_storage: 0 },
  memory: 0,
  storage: 0,
  reserved_memory: 0,
  reserved_storage: 0,
  accounts: 0,
  ha_assets: 0,
  api: { total: 0, errors: 0 },
  streams: 0,
  consumers: 0,
  messages: 0,
  bytes: 0,
};

/**
 * /jsz: JetStream's config and totals; `accounts=1` (or `acc=<name>`) adds each account's
 * details, `streams=1` their streams, `consumers=1` the streams' consumers, `config=1` the
 * streams' and consumers' configs. `consumers` implies `streams`, which implies `accounts`, as
 * in nats-server.
 * Bad query values fail in nats-server's order of reading them.
 */
export function jsz(server: MonitoredServer, query: Query) {
  const accounts = query.bool('accounts');
  const streams = query.bool('streams');
  const withConsumers = query.bool('consumers');
  const withConfig = query.bool('config');
  const offset = Math.max(0, query.int('offset', 0));
  const limit = query.int('limit', 0) || DEFAULT_LIMIT;
  query.bool('leader-only'); // A standalone server leads everything it has.
  const withStreams = streams || withConsumers;
  const withAccounts = accounts || withStreams;
  const head = { server_id: server.serverId, now: rfc3339(Date.now()) };
  const js = server.jetstream;
  if (!js) return { ...head, ...DISABLED };

  const totals = { streams: 0, consumers: 0, messages: 0, bytes: 0 };
  for (const account of js.accounts.values()) {
    for (const stream of account.streams.values()) {
      const state = stream.state();
      totals.streams++;
      totals.consumers += state.consumer_count;
      totals.messages += state.messages;
      totals.bytes += state.bytes;
    }
  }
  const named = js.accounts.get(query.string('acc') ?? '');
  const detailed = named
    ? [named]
    : withAccounts
      ? [...js.accounts.values()].sort(byName).slice(offset, offset + limit)
      : [];
  return {
    ...head,
    config: jetStreamConfig(js.options),
    ...jetStreamStats(js),
    ...totals,
    ...(detailed.length > 0
      ? {
          account_details: detailed.map((account) =>
            accountDetail(js, account, { withStreams, withConsumers, withConfig }),
          ),
        }
      : {}),
  };
}

/**
 * One account's JetStream details, as `$SYS.REQ.ACCOUNT.<name>.JSZ` answers them (`streams=1`,
 * and with it `consumers=1` and `config=1`), failing with nats-server's texts.
 */
export function jszAccount(server: MonitoredServer, name: string, query: Query) {
  const js = server.jetstream;
  if (!js) throw new QueryError('jetstream not enabled');
  if (!server.accounts.get(name)) throw new QueryError(`account "${name}" not found`);
  const account = js.accounts.get(name);
  if (!account) throw new QueryError(`account "${name}" not jetstream enabled`);
  const withStreams = query.bool('streams');
  return accountDetail(js, account, {
    withStreams,
    withConsumers: withStreams && query.bool('consumers'),
    withConfig: query.bool('config'),
  });
}

function accountDetail(
  js: JetStreamServer,
  account: JsAccount,
  options: { withStreams: boolean; withConsumers: boolean; withConfig: boolean },
) {
  const { memory, storage } = account.usage();
  const streams = options.withStreams ? [...account.streams.values()].sort(byName) : [];
  return {
    name: account.name,
    id: account.name,
    memory,
    storage,
    reserved_memory: UNLIMITED_RESERVATION,
    reserved_storage: UNLIMITED_RESERVATION,
    // nats-server counts the accounts of the whole server only, not within one.
    accounts: 0,
    ha_assets: 0,
    api: { ...apiStatsLevel(), total: account.api.total, errors: account.api.errors },
    ...(streams.length > 0
      ? {
          stream_detail: streams.map((stream) => {
            const { config, created, state } = js.streamInfo(stream);
            const consumers = options.withConsumers ? stream.consumers.sorted() : [];
            return {
              name: stream.name,
              created,
              cluster: { leader: js.serverName },
              ...(options.withConfig ? { config } : {}),
              state,
              ...(consumers.length > 0
                ? {
                    consumer_detail: consumers.map((consumer) => {
                      const info = consumer.info();
                      // An undefined field is not written, so the config just drops out.
                      return options.withConfig ? info : { ...info, config: undefined };
                    }),
                  }
                : {}),
            };
          }),
        }
      : {}),
  };
}
