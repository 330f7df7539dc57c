import type { AccountOptions, ExportOptions, ImportOptions } from '../src/index.js';
import { natsUserConfig } from './nats-auth-config.js';

/** The nats-server `accounts` block for our account options (the config format takes JSON). */
export function natsAccountsConfig(accounts: Record<string, AccountOptions>): string {
  const block = Object.fromEntries(
    Object.entries(accounts).map(([name, account]) => [
      name,
      {
        users: account.users?.map(natsUserConfig),
        exports: account.exports?.map(exportConfig),
        imports: account.imports?.map(importConfig),
        jetstream: jetstreamConfig(account.jetstream),
        mappings: account.mappings,
        limits: account.limits && {
          max_connections: account.limits.maxConnections,
          max_subscriptions: account.limits.maxSubscriptions,
        },
      },
    ]),
  );
  return `accounts: ${JSON.stringify(block)}`;
}

function exportConfig(entry: ExportOptions): object {
  if ('stream' in entry) return entry;
  return {
    service: entry.service,
    accounts: entry.accounts,
    response_type: entry.responseType,
    response_threshold:
      entry.responseThreshold === undefined ? undefined : `${entry.responseThreshold}ms`,
  };
}

function importConfig(entry: ImportOptions): object {
  return entry;
}

function jetstreamConfig(js: AccountOptions['jetstream']): unknown {
  if (js === undefined || typeof js === 'boolean') return js && 'enabled';
  return {
    max_memory: js.maxMemory,
    max_file: js.maxFile,
    max_streams: js.maxStreams,
    max_consumers: js.maxConsumers,
  };
}
