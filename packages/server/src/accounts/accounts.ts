import {
  isSubsetMatch,
  isValidPublishSubject,
  isValidSubscribeSubject,
} from '@slipstream/protocol';
import { isPublicKey } from '../auth/nkey.js';
import { ServerError } from '../errors.js';
import { type JsAccountLimits, UNLIMITED } from '../jetstream/account-limits.js';
import { SYSTEM_ACCOUNT } from '../options.js';
import { Account, GLOBAL_ACCOUNT } from './account.js';
import type {
  AccountJetStreamOptions,
  AccountOptions,
  ExportOptions,
  ImportOptions,
} from './account-options.js';
import { IMPORT_CYCLE, serviceImportFormsCycle, streamImportFormsCycle } from './import-cycles.js';
import { ServiceLatency } from './service-latency.js';
import { DEFAULT_RESPONSE_THRESHOLD } from './service-responses.js';
import { type MappingOptions, SubjectMappings } from './subject-mappings.js';

const RESPONSE_TYPES = new Set(['singleton', 'stream', 'chunked']);

/**
 * Every account of the server by name: `$G` always, plus those configured. Exports are set up
 * first and imports after, each checked against the exporter's exports as nats-server does, so
 * a config that imports what is not exported to it does not start.
 */
export class Accounts {
  readonly global: Account;
  /**
   * The accounts JetStream serves, with their limits, when the server runs it: those whose
   * options enable it, or `$G` alone when no account is configured (as nats-server).
   */
  readonly jetStream = new Map<string, JsAccountLimits>();
  readonly #byName = new Map<string, Account>();

  /** The account of the server's `$SYS` events and requests. */
  readonly system: Account;

  /** Throws ServerError INVALID_OPTION for a config nats-server would refuse too. */
  constructor(
    configured: Readonly<Record<string, AccountOptions>> = {},
    systemAccount = SYSTEM_ACCOUNT,
    /** The global account's mappings (nats-server's top-level `mappings`). */
    globalMappings?: Readonly<Record<string, MappingOptions>>,
    /** The server's id, which latency reports and shared request details carry. */
    readonly serverId = '',
  ) {
    this.global = new Account(GLOBAL_ACCOUNT, 0, 0, subjectMappings(globalMappings, 'mappings'));
    this.#byName.set(GLOBAL_ACCOUNT, this.global);
    for (const name of Object.keys(configured)) {
      if (name === GLOBAL_ACCOUNT) throw invalid(`accounts: "${name}" is a reserved account`);
      if (!name || /[\s.*>]/.test(name)) throw invalid(`accounts: invalid account name "${name}"`);
      const options = configured[name]!;
      const limits = jetStreamLimits(options.jetstream, `accounts.${name}.jetstream`);
      if (limits) this.jetStream.set(name, limits);
      const { maxConnections = 0, maxSubscriptions = 0 } = options.limits ?? {};
      for (const [key, value] of Object.entries({ maxConnections, maxSubscriptions })) {
        if (!Number.isInteger(value) || value < 0) {
          throw invalid(`accounts.${name}.limits.${key} must be an integer >= 0, got ${value}`);
        }
      }
      if (options.nkey !== undefined && !isPublicKey(options.nkey, 'A')) {
        throw invalid(
          `accounts.${name}.nkey: not a valid public nkey for an account: ${JSON.stringify(options.nkey)}`,
        );
      }
      const mappings = subjectMappings(options.mappings, `accounts.${name}.mappings`);
      this.#byName.set(name, new Account(name, maxConnections, maxSubscriptions, mappings));
      this.#byName.get(name)!.msgTrace = msgTrace(options.msgTrace, `accounts.${name}.msgTrace`);
    }
    if (this.#byName.size === 1) this.jetStream.set(GLOBAL_ACCOUNT, UNLIMITED);
    if (systemAccount === SYSTEM_ACCOUNT && !this.#byName.has(SYSTEM_ACCOUNT)) {
      this.#byName.set(SYSTEM_ACCOUNT, new Account(SYSTEM_ACCOUNT));
    }
    const system = this.#byName.get(systemAccount);
    if (!system || system === this.global) {
      throw invalid(`systemAccount "${systemAccount}" is not an account of accounts`);
    }
    this.system = system;
    this.#share(configured);
  }

  /** Sets up the exports, then the imports, of the configured accounts. */
  #share(configured: Readonly<Record<string, AccountOptions>>): void {
    for (const [name, options] of Object.entries(configured)) {
      for (const [i, entry] of (options.exports ?? []).entries()) {
        this.#addExport(this.#byName.get(name)!, entry, `accounts.${name}.exports[${i}]`);
      }
    }
    // Stream imports first, then service imports, as nats-server adds them (the order decides
    // which import of a cycle is reported).
    for (const kind of ['stream', 'service'] as const) {
      for (const [name, options] of Object.entries(configured)) {
        const duplicates = new Set<string>();
        for (const [i, entry] of (options.imports ?? []).entries()) {
          if (!(kind in entry)) continue;
          const where = `accounts.${name}.imports[${i}]`;
          this.#addImport(this.#byName.get(name)!, entry, where, duplicates);
        }
      }
    }
  }

  get(name: string): Account | undefined {
    return this.#byName.get(name);
  }

  /**
   * Operator mode, after an account's claims changed: adds the accounts that are new, takes the
   * connection and subscription limits and the JetStream limits (of new accounts, and of those
   * that have JetStream already), and sets up every export and import again, as nats-server's
   * updateAccountClaims replaces them.
   */
  reconfigure(configured: Readonly<Record<string, AccountOptions>>): void {
    for (const [name, options] of Object.entries(configured)) {
      const { maxConnections = 0, maxSubscriptions = 0 } = options.limits ?? {};
      const account = this.#byName.get(name);
      const jetStream = jetStreamLimits(options.jetstream, `accounts.${name}.jetstream`);
      if (!account) {
        this.#byName.set(name, new Account(name, maxConnections, maxSubscriptions));
        if (jetStream) this.jetStream.set(name, jetStream);
        continue;
      }
      account.maxConnections = maxConnections;
      account.maxSubscriptions = maxSubscriptions;
      if (jetStream && this.jetStream.has(name)) this.jetStream.set(name, jetStream);
      account.unshare();
    }
    this.#share(configured);
  }

  values(): IterableIterator<Account> {
    return this.#byName.values();
  }

  close(): void {
    for (const account of this.#byName.values()) account.close();
  }

  #addExport(account: Account, entry: ExportOptions, where: string): void {
    const subject = 'stream' in entry ? entry.stream : entry.service;
    if (typeof subject !== 'string' || !isValidSubscribeSubject(subject)) {
      throw invalid(`${where}: invalid subject ${JSON.stringify(subject)}`);
    }
    for (const name of entry.accounts ?? []) {
      if (!this.#byName.has(name)) throw invalid(`${where}: account "${name}" is not defined`);
    }
    const accounts = entry.accounts && new Set(entry.accounts);
    const position = entry.accountTokenPosition ?? 0;
    if (
      !Number.isInteger(position) ||
      position < 0 ||
      (position > 0 && subject.split('.')[position - 1] !== '*')
    ) {
      throw invalid(
        `${where}: accountTokenPosition ${position} is not the position of a * in "${subject}" (invalid subject)`,
      );
    }
    if ('stream' in entry) {
      account.exportStream(subject, accounts, position);
      return;
    }
    if (entry.allowTrace) account.tracedServiceExports.add(subject);
    const type = entry.responseType ?? 'singleton';
    if (!RESPONSE_TYPES.has(type)) {
      throw invalid(`${where}: unknown response type "${type}" (singleton, stream or chunked)`);
    }
    const threshold = entry.responseThreshold ?? DEFAULT_RESPONSE_THRESHOLD;
    if (!Number.isFinite(threshold) || threshold <= 0) {
      throw invalid(`${where}: responseThreshold must be a positive number of milliseconds`);
    }
    const latency = entry.latency && this.#latency(account, subject, type, entry.latency, where);
    account.exportService(subject, accounts, { type, threshold }, latency, position);
  }

  /** A service export's latency tracking, checked as nats-server's TrackServiceExportWithSampling. */
  #latency(
    account: Account,
    service: string,
    type: string,
    { subject, sampling = 100 }: { subject: string; sampling?: number | 'headers' },
    where: string,
  ): ServiceLatency {
    const problem = (why: string) =>
      invalid(
        `${where}: error adding service latency sampling for "${service}" on subject "${subject}": ${why}`,
      );
    const percent = sampling === 'headers' ? 0 : sampling;
    if (sampling !== 'headers' && (!Number.isInteger(percent) || percent < 1 || percent > 100)) {
      throw problem('bad sampling percentage, should be 1-100');
    }
    // Reports on a subject the account serves would loop back into the service.
    if (
      !isValidPublishSubject(subject) ||
      isSubsetMatch(subject, service) ||
      account.exportsServiceMatching(subject)
    ) {
      throw problem('invalid publish subject');
    }
    if (type !== 'singleton') throw problem('bad service response type');
    return new ServiceLatency(account, subject, percent, this.serverId);
  }

  #addImport(account: Account, entry: ImportOptions, where: string, services: Set<string>): void {
    const source = 'stream' in entry ? entry.stream : entry.service;
    const exporter = this.#byName.get(source?.account ?? '');
    if (!exporter) throw invalid(`${where}: account "${source?.account}" is not defined`);
    const subject = source.subject;
    if (typeof subject !== 'string' || !isValidSubscribeSubject(subject)) {
      throw invalid(`${where}: invalid subject ${JSON.stringify(subject)}`);
    }
    if ('stream' in entry) {
      if (entry.prefix !== undefined && entry.to !== undefined) {
        throw invalid(`${where}: a stream import takes a prefix or a to, not both`);
      }
      if (!exporter.exportsStreamTo(subject, account.name)) {
        throw invalid(
          `${where}: account "${exporter.name}" does not export stream "${subject}" to "${account.name}"`,
        );
      }
      const prefix = entry.prefix?.replace(/\.$/, '');
      if (prefix !== undefined && !isValidPublishSubject(prefix)) {
        throw invalid(`${where}: prefix must be a subject without wildcards, got "${prefix}"`);
      }
      const to = prefix === undefined ? (entry.to ?? subject) : `${prefix}.${subject}`;
      if (!isValidSubscribeSubject(to)) throw invalid(`${where}: invalid to "${to}"`);
      if (streamImportFormsCycle(account, exporter, to)) {
        throw invalid(`${where}: error adding stream import "${subject}": ${IMPORT_CYCLE}`);
      }
      account.importStream(exporter, subject, to, entry.allowTrace);
      return;
    }
    const local = entry.to ?? subject;
    if (!isValidSubscribeSubject(local)) throw invalid(`${where}: invalid to "${local}"`);
    if (services.has(local)) throw invalid(`${where}: duplicate service import subject "${local}"`);
    services.add(local);
    const exported = exporter.serviceExportTo(subject, account.name);
    if (!exported) {
      throw invalid(
        `${where}: account "${exporter.name}" does not export service "${subject}" to "${account.name}"`,
      );
    }
    if (serviceImportFormsCycle(account, exporter, local)) {
      throw invalid(`${where}: error adding service import "${subject}": ${IMPORT_CYCLE}`);
    }
    const share = entry.share ? { serverId: this.serverId } : undefined;
    account.importService(exporter, subject, local, exported.responses, exported.latency, share);
  }
}

/** An account's `jetstream` option as limits; undefined when JetStream is off for it. */
function jetStreamLimits(
  option: AccountOptions['jetstream'],
  where: string,
): JsAccountLimits | undefined {
  if (!option) return undefined;
  if (option === true) return UNLIMITED;
  const limit = (key: keyof AccountJetStreamOptions) => {
    const value = option[key] ?? -1;
    if (!Number.isInteger(value) || value < -1) {
      throw invalid(`${where}.${key} must be an integer >= -1, got ${value}`);
    }
    return value;
  };
  return {
    maxMemory: limit('maxMemory'),
    maxFile: limit('maxFile'),
    maxStreams: limit('maxStreams'),
    maxConsumers: limit('maxConsumers'),
  };
}

/** An account's trace destination for traceparent-triggered traces, checked as nats-server's. */
function msgTrace(option: AccountOptions['msgTrace'], where: string): Account['msgTrace'] {
  if (!option) return undefined;
  const { dest, sampling = 100 } = option;
  if (!isValidPublishSubject(dest)) {
    throw invalid(`${where}: trace destination ${JSON.stringify(dest)} is not valid`);
  }
  if (!Number.isInteger(sampling) || sampling < 1 || sampling > 100) {
    throw invalid(`${where}: sampling ${sampling} is invalid, needs to be [1..100]`);
  }
  return { dest, sampling };
}

/** Mappings as the account applies them; undefined for none. */
function subjectMappings(
  mappings: Readonly<Record<string, MappingOptions>> | undefined,
  where: string,
): SubjectMappings | undefined {
  if (!mappings || Object.keys(mappings).length === 0) return undefined;
  try {
    return new SubjectMappings(mappings);
  } catch (error) {
    throw invalid(`${where}: ${(error as Error).message}`);
  }
}

function invalid(message: string): ServerError {
  return new ServerError('INVALID_OPTION', message);
}
