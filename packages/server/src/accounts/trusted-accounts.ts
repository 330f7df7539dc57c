import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Claims, verifiedClaims } from '../auth/jwt.js';
import { isPublicKey } from '../auth/nkey.js';
import type { OperatorOptions, ResolverOptions } from '../auth/operator-options.js';
import { ServerError } from '../errors.js';
import { type AccountNats, accountsFromClaims, importsProblems } from './account-claims.js';
import type { AccountOptions } from './account-options.js';
import { activationExpiry } from './activations.js';

interface OperatorNats {
  type?: string;
  signing_keys?: string[];
  system_account?: string;
}

/**
 * What became of a pushed account JWT: taken or skipped, refused by validation (the problems),
 * or not taken for another reason.
 */
export type ClaimsUpdate =
  | { account?: string; updated: boolean }
  | { account: string; invalid: string[] }
  | { error: string };

/** How long nats-server waits for an account JWT it fetches (DEFAULT_ACCOUNT_FETCH_TIMEOUT). */
const FETCH_TIMEOUT = 1_900;

/**
 * The accounts operator mode trusts, by public key: each JWT issued by a trusted operator (or
 * one of its signing keys), from the resolver's preload, its directory (full and cache
 * resolvers) or its URL (fetched when first needed). Account options for {@link Accounts} are
 * derived from the claims; the claims themselves (signing keys, revocations, default
 * permissions) are read at each login, so a claims update applies to the next one.
 */
export class TrustedAccounts {
  /** The system account the operator names, if any. */
  readonly systemAccount: string | undefined;
  readonly #issuers = new Set<string>();
  readonly #claims = new Map<string, Claims<AccountNats>>();
  readonly #resolver: ResolverOptions['type'];
  readonly #dir: string | undefined;
  /** The URL resolver's base, ending in `/`. */
  readonly #url: string | undefined;
  /** Fetches under way, so concurrent logins of one account fetch it once. */
  readonly #fetching = new Map<string, Promise<void>>();
  /**
   * The accounts looked up so far (the system account, those users logged in to, and the
   * accounts they import from): all but the full resolver update only these, as nats-server
   * updates only the accounts it has loaded.
   */
  readonly #inUse = new Set<string>();

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
    this.#resolver = resolver.type;
    if (resolver.type === 'full' || resolver.type === 'cache') {
      if (!resolver.dir) throw invalid(`resolver: ${resolver.type} needs a dir`);
      this.#dir = resolver.dir;
      this.#loadDirectory(resolver.dir);
    }
    if (resolver.type === 'url') {
      if (!/^https?:\/\//i.test(resolver.url)) throw invalid('resolver: URL needs an http(s) URL');
      this.#url = resolver.url.endsWith('/') ? resolver.url : `${resolver.url}/`;
    }
    // As nats-server, the full resolver stores the preloaded JWTs in its directory.
    for (const [key, jwt] of Object.entries(resolver.preload ?? {})) {
      this.#loaded(jwt, key, `resolver_preload.${key}`, true);
    }
    if (system) this.lookedUp(system);
  }

  /**
   * A JWT the resolver starts with: a forged one stops the start, one nats-server's validation
   * refuses (see {@link importsProblems}) is left out, so its users cannot log in, as nats-server.
   */
  #loaded(jwt: string, key: string, where: string, store: boolean): void {
    const accepted = this.#accept(jwt, key);
    if (typeof accepted === 'string') throw invalid(`${where}: ${accepted}`);
    if (importsProblems(accepted.sub, accepted.nats).length === 0) this.#keep(accepted, jwt, store);
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

  /**
   * Whether the resolver has a directory (full, cache), and so serves `$SYS.REQ.CLAIMS.UPDATE`
   * as well; the full one takes new accounts' JWTs that way too.
   */
  get stores(): boolean {
    return this.#dir !== undefined;
  }

  /** The cache resolver, whose answers to updates say so (`jwt updated cache`). */
  get caches(): boolean {
    return this.#resolver === 'cache';
  }

  /** Whether accounts unknown yet are fetched (the URL resolver). */
  get fetches(): boolean {
    return this.#url !== undefined;
  }

  /**
   * Before the server starts: the URL resolver's base must answer 200, as nats-server checks
   * that anyone is home (ServerError INVALID_OPTION otherwise), and the system account is
   * fetched. Nothing to do for the other resolvers.
   */
  async start(): Promise<void> {
    const url = this.#url;
    if (url === undefined) return;
    let status: string;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT) });
      await response.body?.cancel();
      if (response.status === 200) {
        if (this.systemAccount) await this.fetch(this.systemAccount);
        return;
      }
      status = `${response.status} ${response.statusText}`;
    } catch (error) {
      status = (error as Error).message;
    }
    throw invalid(`resolver: could not fetch <${JSON.stringify(url)}>: ${status}`);
  }

  /** A login looked the account up: it and the accounts it imports from are in use now. */
  lookedUp(account: string): void {
    if (this.#inUse.has(account)) return;
    this.#inUse.add(account);
    for (const i of this.#claims.get(account)?.nats.imports ?? []) {
      if (i.account && this.#claims.has(i.account)) this.lookedUp(i.account);
    }
  }

  /**
   * Fetches an account's JWT from the URL resolver, and those of the accounts it imports from,
   * as nats-server's URLAccResolver (`GET <url><account>`, 200 with the JWT); an account that
   * cannot be fetched or is not trusted stays unknown. True when accounts were added.
   */
  async fetch(account: string): Promise<boolean> {
    const before = this.#claims.size;
    await this.#fetchWithImports(account, new Set());
    return this.#claims.size > before;
  }

  async #fetchWithImports(account: string, seen: Set<string>): Promise<void> {
    if (seen.has(account) || this.#url === undefined) return;
    seen.add(account);
    if (!this.#claims.has(account)) {
      let pending = this.#fetching.get(account);
      if (!pending) {
        pending = this.#fetchOne(this.#url, account).finally(() => this.#fetching.delete(account));
        this.#fetching.set(account, pending);
      }
      await pending;
    }
    const imports = this.#claims.get(account)?.nats.imports ?? [];
    await Promise.all(imports.map((i) => i.account && this.#fetchWithImports(i.account, seen)));
  }

  async #fetchOne(url: string, account: string): Promise<void> {
    let jwt: string;
    try {
      const response = await fetch(`${url}${account}`, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT),
      });
      if (response.status !== 200) return;
      jwt = (await response.text()).trim();
    } catch {
      return;
    }
    const accepted = this.#accept(jwt, account);
    if (typeof accepted !== 'string' && importsProblems(accepted.sub, accepted.nats).length === 0) {
      this.#keep(accepted, jwt, false);
    }
  }

  /**
   * Takes a pushed account JWT (`$SYS.REQ.…CLAIMS.UPDATE`): checked, and with a directory
   * stored there; all resolvers but the full one skip an account not in use (see
   * {@link lookedUp}). The next login reads the claims. Answers what happened, or the error.
   */
  update(jwt: string, account?: string): ClaimsUpdate {
    const accepted = this.#accept(jwt, account);
    if (typeof accepted === 'string') return { error: accepted };
    if (this.#resolver !== 'full' && !this.#inUse.has(accepted.sub)) {
      return { account: accepted.sub, updated: false };
    }
    const invalid = importsProblems(accepted.sub, accepted.nats);
    if (invalid.length) return { account: accepted.sub, invalid };
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

  /** When the next activation token of an account's import expires (ms since the epoch). */
  nextActivationExpiry(now = Date.now()): number | undefined {
    let next: number | undefined;
    for (const { nats } of this.#claims.values()) {
      for (const { token } of nats.imports ?? []) {
        const at = token === undefined ? undefined : activationExpiry(token);
        if (at !== undefined && at > now && (next === undefined || at < next)) next = at;
      }
    }
    return next;
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
