import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Claims, verifiedClaims } from '../auth/jwt.js';
import { isPublicKey } from '../auth/nkey.js';
import type { OperatorOptions, ResolverOptions } from '../auth/operator-options.js';
import { ServerError } from '../errors.js';
import { type AccountNats, accountsFromClaims, importsProblem } from './account-claims.js';
import type { AccountOptions } from './account-options.js';

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
      this.#loaded(jwt, key, `resolver_preload.${key}`, true);
    }
  }

  /**
   * A JWT the resolver starts with: a forged one stops the start, one nats-server's validation
   * refuses (see {@link importsProblem}) is left out, so its users cannot log in, as nats-server.
   */
  #loaded(jwt: string, key: string, where: string, store: boolean): void {
    const accepted = this.#accept(jwt, key);
    if (typeof accepted === 'string') throw invalid(`${where}: ${accepted}`);
    if (importsProblem(accepted.sub, accepted.nats) === undefined) this.#keep(accepted, jwt, store);
  }

  /** The `<account>.jwt` files of the full resolver's directory (made if missing). */
  #loadDirectory(dir: string): void {
    mkdirSync(dir, { recursive: true });
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.jwt')) continue;
      const jwt = readFileSync(join(dir, file), 'utf8');
      this.#loaded(jwt, file.slice(0, -4), `resolver dir ${file}`, false);
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
    const accepted = this.#accept(jwt, account);
    if (typeof accepted === 'string') return { error: accepted };
    const problem = importsProblem(accepted.sub, accepted.nats);
    if (problem !== undefined) return { error: problem };
    this.#keep(accepted, jwt, true);
    return { account: accepted.sub, updated: true };
  }

  /** Keeps the newest claims of the account and, if asked, writes the JWT to the directory. */
  #keep(claims: Claims<AccountNats>, jwt: string, store: boolean): void {
    const known = this.#claims.get(claims.sub);
    // An older JWT does not replace a newer one (nats-server's resolvers keep the newest).
    if (!known || (known.iat ?? 0) <= (claims.iat ?? 0)) this.#claims.set(claims.sub, claims);
    if (store && this.#dir !== undefined) writeFileSync(join(this.#dir, `${claims.sub}.jwt`), jwt);
  }

  /** Options for {@link Accounts}: one account per trusted JWT, plus the system account. */
  accountOptions(systemAccount: string): Record<string, AccountOptions> {
    const nats = new Map([...this.#claims].map(([key, claims]) => [key, claims.nats]));
    return { [systemAccount]: {}, ...accountsFromClaims(nats) };
  }

  /** The claims of an account JWT a trusted operator issued (as `expected`, if given), or why not. */
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
    return claims;
  }
}

function invalid(message: string): ServerError {
  return new ServerError('INVALID_OPTION', message);
}
