import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Claims, type JwtPermissions, verifiedClaims } from '../auth/jwt.js';
import { isPublicKey } from '../auth/nkey.js';
import type { OperatorOptions, ResolverOptions } from '../auth/operator-options.js';
import { ServerError } from '../errors.js';
import type { AccountOptions, ExportOptions, ImportOptions } from './account-options.js';

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

interface OperatorNats {
  type?: string;
  signing_keys?: string[];
  system_account?: string;
}

/**
 * The accounts operator mode trusts, by public key: each JWT issued by a trusted operator (or
 * one of its signing keys), from the resolver's preload and, for the full resolver, its
 * directory. Account options for {@link Accounts} are derived from the claims; the claims
 * themselves (signing keys, revocations, default permissions) are read at each login, so a
 * claims update applies to the next one.
 */
export class TrustedAccounts {
  /** The system account the operator names, if any. */
  readonly systemAccount: string | undefined;
  readonly #issuers = new Set<string>();
  readonly #claims = new Map<string, Claims<AccountNats>>();
  readonly #dir: string | undefined;

  /** Throws ServerError INVALID_OPTION for a JWT or a resolver nats-server would refuse too. */
  constructor(options: OperatorOptions) {
    if (!options.jwts.length) throw invalid('operator needs at least one operator JWT');
    let system: string | undefined;
    for (const [i, jwt] of options.jwts.entries()) {
      const claims = verifiedClaims<OperatorNats>(jwt);
      if (typeof claims === 'string') throw invalid(`operator[${i}]: ${claims}`);
      if (claims.nats.type !== 'operator' || !isPublicKey(claims.sub, 'O')) {
        throw invalid(`operator[${i}]: not an operator JWT`);
      }
      this.#issuers.add(claims.sub);
      for (const key of claims.nats.signing_keys ?? []) this.#issuers.add(key);
      system ??= claims.nats.system_account;
    }
    this.systemAccount = system;
    const resolver: ResolverOptions = options.resolver;
    if (resolver.type === 'full') {
      if (!resolver.dir) throw invalid('resolver: full needs a dir');
      this.#dir = resolver.dir;
      this.#loadDirectory(resolver.dir);
    }
    // As nats-server, the full resolver stores the preloaded JWTs in its directory.
    for (const [key, jwt] of Object.entries(resolver.preload ?? {})) {
      const stored = this.#store(jwt, key);
      if (typeof stored === 'string') throw invalid(`resolver_preload.${key}: ${stored}`);
    }
  }

  /** The `<account>.jwt` files of the full resolver's directory (made if missing). */
  #loadDirectory(dir: string): void {
    mkdirSync(dir, { recursive: true });
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.jwt')) continue;
      const accepted = this.#accept(readFileSync(join(dir, file), 'utf8'), file.slice(0, -4));
      if (typeof accepted === 'string') throw invalid(`resolver dir ${file}: ${accepted}`);
    }
  }

  /** The claims of a trusted account that has not expired. */
  get(account: string): Claims<AccountNats> | undefined {
    const claims = this.#claims.get(account);
    if (claims?.exp && claims.exp <= Date.now() / 1000) return undefined;
    return claims;
  }

  /** Whether the full resolver stores pushed JWTs (and so takes new accounts' JWTs too). */
  get stores(): boolean {
    return this.#dir !== undefined;
  }

  /**
   * Takes a pushed account JWT (`$SYS.REQ.…CLAIMS.UPDATE`): checked, and with the full resolver
   * stored in its directory; the memory resolver only takes new claims of an account it has.
   * The next login reads them. Answers what happened, or the error.
   */
  update(
    jwt: string,
    account?: string,
  ): { account?: string; updated: boolean } | { error: string } {
    if (!this.stores && account !== undefined && !this.#claims.has(account)) {
      return { updated: false };
    }
    const stored = this.#store(jwt, account);
    return typeof stored === 'string' ? { error: stored } : { account: stored.sub, updated: true };
  }

  /** Accepts the JWT and, with a directory, writes it there; the claims, or the error text. */
  #store(jwt: string, account: string | undefined): Claims<AccountNats> | string {
    const accepted = this.#accept(jwt, account);
    if (typeof accepted === 'string') return accepted;
    if (this.#dir !== undefined) writeFileSync(join(this.#dir, `${accepted.sub}.jwt`), jwt);
    return accepted;
  }

  /** Options for {@link Accounts}: one account per trusted JWT, plus the system account. */
  accountOptions(systemAccount: string): Record<string, AccountOptions> {
    const options: Record<string, AccountOptions> = { [systemAccount]: {} };
    for (const [key, claims] of this.#claims) {
      options[key] = accountOptions(claims.nats, (name) => this.#claims.has(name));
    }
    return options;
  }

  #accept(jwt: string, expected: string | undefined): Claims<AccountNats> | string {
    const claims = verifiedClaims<AccountNats>(jwt);
    if (typeof claims === 'string') return claims;
    if (claims.nats.type !== 'account' || !isPublicKey(claims.sub, 'A')) {
      return 'not an account JWT';
    }
    if (expected !== undefined && claims.sub !== expected) {
      return 'subject does not match jwt content';
    }
    if (!this.#issuers.has(claims.iss)) return 'not issued by a trusted operator';
    const known = this.#claims.get(claims.sub);
    // An older JWT does not replace a newer one (nats-server's resolvers keep the newest).
    if (!known || (known.iat ?? 0) <= (claims.iat ?? 0)) this.#claims.set(claims.sub, claims);
    return claims;
  }
}

const RESPONSE_TYPES: Record<string, 'singleton' | 'stream' | 'chunked'> = {
  singleton: 'singleton',
  stream: 'stream',
  chunked: 'chunked',
};

/**
 * An account's claims as account options: its exports (those that need an activation token are
 * exported to nobody, as this server takes no tokens), the imports from trusted accounts, its
 * connection and subscription limits, and JetStream when the limits give it memory or disk storage.
 */
function accountOptions(nats: AccountNats, trusted: (account: string) => boolean): AccountOptions {
  const exports: ExportOptions[] = (nats.exports ?? []).flatMap((e): ExportOptions[] => {
    if (!e.subject) return [];
    const accounts = e.token_req ? [] : undefined;
    if (e.type === 'stream') return [{ stream: e.subject, accounts }];
    return [
      {
        service: e.subject,
        accounts,
        responseType: RESPONSE_TYPES[(e.response_type ?? 'singleton').toLowerCase()],
        ...(e.response_threshold ? { responseThreshold: e.response_threshold / 1e6 } : {}),
      },
    ];
  });
  const imports: ImportOptions[] = (nats.imports ?? []).flatMap((i): ImportOptions[] => {
    if (!i.subject || !i.account || i.token || !trusted(i.account)) return [];
    if (i.type === 'stream') {
      const source = { account: i.account, subject: i.subject };
      if (i.local_subject) return [{ stream: source, to: i.local_subject }];
      return [{ stream: source, ...(i.to ? { prefix: i.to } : {}) }];
    }
    // A service import's subject is the local one, `to` the exporter's (unless local_subject is set).
    const local = i.local_subject ?? i.subject;
    const remote = i.local_subject ? i.subject : (i.to ?? i.subject);
    return [{ service: { account: i.account, subject: remote }, to: local }];
  });
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
  return { exports, imports, limits: clients, ...(jetstream ? { jetstream } : {}) };
}

function invalid(message: string): ServerError {
  return new ServerError('INVALID_OPTION', message);
}
