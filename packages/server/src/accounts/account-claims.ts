import { isSubsetMatch } from '@slipstream/protocol';
import type { JwtPermissions } from '../auth/jwt.js';
import type { AccountOptions, ExportOptions, ImportOptions } from './account-options.js';
import { activationGranted, activationProblem, type TokenImport } from './activations.js';

/** A signing key of an account's claims: a plain key, or a scope that fixes its users' rights. */
export type SigningKey =
  | string
  | { kind: 'user_scope'; key: string; template?: JwtPermissions & Record<string, unknown> };

interface JwtExport {
  subject?: string;
  type?: 'stream' | 'service';
  token_req?: boolean;
  response_type?: string;
  /** Nanoseconds. */
  response_threshold?: number;
  /** Activations revoked: importer (or `*`) → tokens issued until then (seconds). */
  revocations?: Record<string, number>;
}

interface JwtImport {
  subject?: string;
  account?: string;
  token?: string;
  to?: string;
  local_subject?: string;
  type?: 'stream' | 'service';
}

/** An account JWT's own claims (nats-io/jwt v2 `Account`), as far as this server uses them. */
export interface AccountNats {
  type?: string;
  version?: number;
  limits?: Record<string, number | boolean | undefined>;
  signing_keys?: SigningKey[];
  /** Users (or `*`: all) whose JWTs issued at or before the time (seconds) are refused. */
  revocations?: Record<string, number>;
  default_permissions?: JwtPermissions;
  exports?: JwtExport[];
  imports?: JwtImport[];
}

/**
 * Account options for {@link Accounts} from the trusted accounts' claims, by public key. An
 * import is honoured, as nats-server honours it, when its exporter is trusted and has an export
 * covering it (the exact subject first) that is public, or private (`token_req`) and the import
 * carries an activation token the exporter issued for it; other imports are left out, so they
 * deliver nothing. A private export is open to exactly the importers whose tokens it granted.
 */
export function accountsFromClaims(
  accounts: ReadonlyMap<string, AccountNats>,
): Record<string, AccountOptions> {
  const granted = new Map<JwtExport, string[]>();
  const imports = new Map<string, ImportOptions[]>();
  for (const [importer, nats] of accounts) {
    const honoured = (nats.imports ?? []).flatMap((i) => {
      const taken = importOptions(i);
      const exported = taken && exportTaking(i, taken, accounts);
      if (!taken || !exported) return [];
      if (exported.token_req) granted.set(exported, [...(granted.get(exported) ?? []), importer]);
      return [taken];
    });
    imports.set(importer, honoured);
  }
  const options: Record<string, AccountOptions> = {};
  for (const [key, nats] of accounts) {
    options[key] = {
      exports: (nats.exports ?? []).flatMap((e) => exportOptions(e, granted.get(e) ?? [])),
      imports: imports.get(key),
      ...limitOptions(nats),
    };
  }
  return options;
}

const RESPONSE_TYPES: Record<string, 'singleton' | 'stream' | 'chunked'> = {
  singleton: 'singleton',
  stream: 'stream',
  chunked: 'chunked',
};

/** An export as an option: a private one open to the `granted` importers only. */
function exportOptions(e: JwtExport, granted: string[]): ExportOptions[] {
  if (!e.subject) return [];
  const accounts = e.token_req ? granted : undefined;
  if (e.type === 'stream') return [{ stream: e.subject, accounts }];
  return [
    {
      service: e.subject,
      accounts,
      responseType: RESPONSE_TYPES[(e.response_type ?? 'singleton').toLowerCase()],
      ...(e.response_threshold ? { responseThreshold: e.response_threshold / 1e6 } : {}),
    },
  ];
}

/** An import as an option, when it names a subject and an account. */
function importOptions(i: JwtImport): ImportOptions | undefined {
  if (!i.subject || !i.account) return undefined;
  if (i.type === 'stream') {
    const source = { account: i.account, subject: i.subject };
    if (i.local_subject) return { stream: source, to: i.local_subject };
    return { stream: source, ...(i.to ? { prefix: i.to } : {}) };
  }
  // A service import's subject is the local one, `to` the exporter's (unless local_subject is set).
  const local = i.local_subject ?? i.subject;
  const remote = i.local_subject ? i.subject : (i.to ?? i.subject);
  return { service: { account: i.account, subject: remote }, to: local };
}

/** The exporter, kind and exporter's subject of an import. */
function importSource(taken: ImportOptions): Omit<TokenImport, 'token'> {
  return 'stream' in taken
    ? { kind: 'stream', ...taken.stream }
    : { kind: 'service', ...taken.service };
}

/**
 * Why nats-server would refuse the account JWT for its imports, in their order: those that
 * carry an activation token that is not one for it (see {@link activationProblem}).
 */
export function importsProblems(key: string, nats: AccountNats): string[] {
  return (nats.imports ?? []).flatMap((i) => {
    const taken = importOptions(i);
    if (!taken || !i.token) return [];
    return activationProblem(key, { token: i.token, ...importSource(taken) }) ?? [];
  });
}

/**
 * The export of the importing account's import that admits it: the exporter's export of exactly
 * the subject, else the first covering it, that is public or whose activation the import carries.
 */
function exportTaking(
  i: JwtImport,
  taken: ImportOptions,
  accounts: ReadonlyMap<string, AccountNats>,
): JwtExport | undefined {
  const { kind, account, subject } = importSource(taken);
  const exporter = accounts.get(account);
  if (!exporter) return undefined;
  const sameKind = (exporter.exports ?? []).filter(
    (e) => e.subject && (e.type === 'stream') === (kind === 'stream'),
  );
  const exact = sameKind.filter((e) => e.subject === subject);
  const candidates = exact.length
    ? exact
    : sameKind.filter((e) => isSubsetMatch(subject, e.subject ?? ''));
  const signingKeys = (exporter.signing_keys ?? []).map((k) => (typeof k === 'string' ? k : k.key));
  return candidates.find(
    (e) =>
      !e.token_req ||
      (i.token !== undefined &&
        activationGranted(i.token, { key: account, signingKeys }, e.revocations)),
  );
}

/**
 * An account's connection and subscription limits, and JetStream when the limits give it memory
 * or disk storage.
 */
function limitOptions(nats: AccountNats): Pick<AccountOptions, 'limits' | 'jetstream'> {
  const limits = nats.limits ?? {};
  const limit = (key: string) => {
    const value = limits[key];
    return typeof value === 'number' ? value : 0;
  };
  // Storage 0 is no JetStream; stream and consumer counts of 0 are no limit (-1 here).
  const jetstream =
    limit('mem_storage') !== 0 || limit('disk_storage') !== 0
      ? {
          maxMemory: limit('mem_storage'),
          maxFile: limit('disk_storage'),
          maxStreams: limit('streams') || -1,
          maxConsumers: limit('consumer') || -1,
        }
      : undefined;
  // -1 is no limit in a JWT, 0 (or absent) is none here.
  const clients = {
    maxConnections: Math.max(limit('conn'), 0),
    maxSubscriptions: Math.max(limit('subs'), 0),
  };
  return { limits: clients, ...(jetstream ? { jetstream } : {}) };
}
