import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';

/**
 * NATS decentralized auth for tests: an operator, its accounts and their users as signed JWTs
 * (NKeys, ed25519), and the nats-server config of operator mode with a memory or full resolver
 * that trusts them. Enough for nats-server 2.9.10; production JWTs come from nsc or an auth service.
 */

const text = (s: string) => new TextEncoder().encode(s);
const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A JWT of `claims` issued and signed by `issuer`, as nats-server checks them. */
export function encodeJwt(claims: Record<string, unknown>, issuer: KeyPair): string {
  const header = base64url(text(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' })));
  const body = base64url(
    text(
      JSON.stringify({
        jti: `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`,
        iat: Math.floor(Date.now() / 1000),
        iss: issuer.getPublicKey(),
        ...claims,
      }),
    ),
  );
  return `${header}.${body}.${base64url(issuer.sign(text(`${header}.${body}`)))}`;
}

/** The text of a `.creds` file: the user's JWT and seed between the markers nsc writes. */
export function credsFile(jwt: string, seed: Uint8Array): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    jwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    'NKEY Seed printed below can be used to sign and prove identity.',
    'NKEYs are sensitive and should be treated as secrets.',
    '',
    '-----BEGIN USER NKEY SEED-----',
    new TextDecoder().decode(seed),
    '------END USER NKEY SEED------',
    '',
  ].join('\n');
}

/** A user of an account: its JWT, seed and the creds file holding both. */
export interface TestUser {
  readonly publicKey: string;
  readonly jwt: string;
  readonly seed: Uint8Array;
  readonly creds: string;
}

/** Subjects one direction of a user's permissions allows and denies. */
export interface TestSubjects {
  allow?: string[];
  deny?: string[];
}

export interface TestUserOptions {
  /** The JWT expires this many seconds from now (negative: it has expired). */
  expiresInSeconds?: number;
  /** The user's publish and subscribe permissions, and allow_responses (`resp`). */
  pub?: TestSubjects;
  sub?: TestSubjects;
  resp?: { max: number; ttl: number };
  /** The JWT alone logs in: the client signs no nonce. */
  bearerToken?: boolean;
  /** Signed by this key instead of the account's: one of its `signingKey()`s, or a stranger. */
  signer?: KeyPair;
  /** CIDRs the user must connect from (`src`). */
  src?: string[];
  /** Daily connect windows (`HH:MM:SS`) in the IANA zone `timesLocation` (`times_location`). */
  times?: { start: string; end: string }[];
  timesLocation?: string;
  /** Limits over the unlimited defaults, by their JWT names (`subs`, `data`, `payload`). */
  limits?: { subs?: number; data?: number; payload?: number };
}

export interface TestAccountOptions {
  /** Unlimited JetStream (memory and disk storage). */
  jetstream?: boolean;
  /** Account limits over the unlimited defaults, by their JWT names (`conn`, `subs`, …). */
  limits?: Record<string, number | boolean>;
  /** More account claims as nats-io/jwt names them: `exports`, `imports`, `default_permissions`. */
  claims?: Record<string, unknown>;
}

const unlimited = -1;
const now = () => Math.floor(Date.now() / 1000);

/**
 * An account of the operator; its users are signed with the account's key or its signing keys.
 * `jwt` is signed afresh from the account's current claims (signing keys, revocations), so a
 * change shows in the next one read.
 */
export class TestAccount {
  readonly name: string;
  readonly #key = createAccount();
  readonly #operator: KeyPair;
  readonly #limits: Record<string, unknown>;
  readonly #signingKeys: string[] = [];
  readonly #revocations: Record<string, number> = {};
  readonly #claims: Record<string, unknown>;

  constructor(operator: KeyPair, name: string, options: TestAccountOptions = {}) {
    this.name = name;
    this.#operator = operator;
    this.#limits = {
      subs: unlimited,
      conn: unlimited,
      leaf: unlimited,
      imports: unlimited,
      exports: unlimited,
      data: unlimited,
      payload: unlimited,
      wildcards: true,
    };
    if (options.jetstream)
      Object.assign(this.#limits, { mem_storage: unlimited, disk_storage: unlimited });
    Object.assign(this.#limits, options.limits);
    this.#claims = { ...options.claims };
  }

  get publicKey(): string {
    return this.#key.getPublicKey();
  }

  get jwt(): string {
    return encodeJwt(
      {
        sub: this.publicKey,
        name: this.name,
        nats: {
          ...this.#claims,
          limits: this.#limits,
          signing_keys: this.#signingKeys,
          revocations: this.#revocations,
          type: 'account',
          version: 2,
        },
      },
      this.#operator,
    );
  }

  /** New limits by their JWT names (`conn`, `subs`, `payload`, …), from the next `jwt` on. */
  limit(limits: Record<string, number | boolean>): void {
    Object.assign(this.#limits, limits);
  }

  /** More account claims, carried from the next `jwt` on (imports with activation tokens). */
  addClaims(claims: Record<string, unknown>): void {
    Object.assign(this.#claims, claims);
  }

  /** A new signing key listed in the account's claims, to sign users with. */
  signingKey(): KeyPair {
    const key = createAccount();
    this.#signingKeys.push(key.getPublicKey());
    return key;
  }

  /** Revokes `user`'s JWTs issued until now (nats-server refuses them from the next `jwt`). */
  revoke(user: TestUser): void {
    this.#revocations[user.publicKey] = now();
  }

  /**
   * An activation token letting `importer` import this account's private (`token_req`) export
   * of `subject`, signed by the account's key or `signer` (one of its `signingKey()`s).
   */
  activation(
    importer: TestAccount,
    subject: string,
    kind: 'stream' | 'service',
    options: { expiresInSeconds?: number; signer?: KeyPair } = {},
  ): string {
    return encodeJwt(
      {
        sub: importer.publicKey,
        name: subject,
        ...(options.expiresInSeconds === undefined
          ? {}
          : { exp: now() + options.expiresInSeconds }),
        nats: {
          subject,
          kind,
          ...(options.signer ? { issuer_account: this.publicKey } : {}),
          type: 'activation',
          version: 2,
        },
      },
      options.signer ?? this.#key,
    );
  }

  /** A new user of this account, allowed everything the account allows unless restricted. */
  user(name: string, options: TestUserOptions = {}): TestUser {
    const key = createUser();
    const signer = options.signer ?? this.#key;
    const jwt = encodeJwt(
      {
        sub: key.getPublicKey(),
        name,
        ...(options.expiresInSeconds === undefined
          ? {}
          : { exp: now() + options.expiresInSeconds }),
        nats: {
          pub: options.pub ?? {},
          sub: options.sub ?? {},
          ...(options.resp ? { resp: options.resp } : {}),
          ...(options.bearerToken ? { bearer_token: true } : {}),
          ...(options.signer ? { issuer_account: this.publicKey } : {}),
          ...(options.src ? { src: options.src } : {}),
          ...(options.times ? { times: options.times } : {}),
          ...(options.timesLocation ? { times_location: options.timesLocation } : {}),
          subs: unlimited,
          data: unlimited,
          payload: unlimited,
          ...options.limits,
          type: 'user',
          version: 2,
        },
      },
      signer,
    );
    const seed = key.getSeed();
    return { publicKey: key.getPublicKey(), jwt, seed, creds: credsFile(jwt, seed) };
  }
}

/**
 * An operator with a system account (SYS) and the accounts asked for; `config()` is the
 * nats-server config text of operator mode trusting them through a memory resolver, or a full
 * resolver's directory.
 */
export class TestOperator {
  readonly #key = createOperator();
  readonly system: TestAccount;
  readonly #accounts: TestAccount[] = [];

  constructor() {
    this.system = this.account('SYS');
  }

  /** A new account signed by the operator (with unlimited JetStream, or limits, if asked). */
  account(name: string, options: TestAccountOptions = {}): TestAccount {
    const account = new TestAccount(this.#key, name, options);
    this.#accounts.push(account);
    return account;
  }

  /** The operator's JWT, naming the system account. */
  get jwt(): string {
    return encodeJwt(
      {
        sub: this.#key.getPublicKey(),
        name: 'test-operator',
        nats: { type: 'operator', version: 2, system_account: this.system.publicKey },
      },
      this.#key,
    );
  }

  /** Every account's JWT by public key, as `resolver_preload` lists them. */
  preload(): Record<string, string> {
    return Object.fromEntries(this.#accounts.map((a) => [a.publicKey, a.jwt]));
  }

  /**
   * `operator`, `system_account`, and `resolver: MEMORY` with `resolver_preload` of every
   * account; with `dir` a full (or `type: cache`) resolver that reads `<dir>/<account>.jwt` (see
   * `writeAccounts`); with `url` a URL resolver fetching `<url><account>`.
   */
  config(resolver: { dir?: string; type?: 'full' | 'cache'; url?: string } = {}): string {
    const lines = [`operator: ${this.jwt}`, `system_account: ${this.system.publicKey}`];
    if (resolver.url !== undefined) {
      lines.push(`resolver: URL(${resolver.url})`);
      return lines.join('\n');
    }
    if (resolver.dir !== undefined) {
      const type = resolver.type ?? 'full';
      lines.push(`resolver: { type: ${type}, dir: ${JSON.stringify(resolver.dir)} }`);
      return lines.join('\n');
    }
    const preload = Object.entries(this.preload()).map(([key, jwt]) => `  ${key}: ${jwt}`);
    lines.push('resolver: MEMORY', `resolver_preload: {\n${preload.join('\n')}\n}`);
    return lines.join('\n');
  }

  /** Writes every account's JWT as `<dir>/<public key>.jwt`, the full resolver's layout. */
  writeAccounts(dir: string): void {
    mkdirSync(dir, { recursive: true });
    for (const [key, jwt] of Object.entries(this.preload())) {
      writeFileSync(join(dir, `${key}.jwt`), jwt);
    }
  }
}
