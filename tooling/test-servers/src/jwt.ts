import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';

/**
 * NATS decentralized auth for tests: an operator, its accounts and their users as signed JWTs
 * (NKeys, ed25519), and the nats-server config of operator mode with a memory resolver that
 * trusts them. Enough for nats-server 2.9.10; production JWTs come from nsc or an auth service.
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

export interface TestUserOptions {
  /** The JWT expires this many seconds from now. */
  expiresInSeconds?: number;
}

const unlimited = -1;

/** An account of the operator; its users are signed with the account's key. */
export class TestAccount {
  readonly name: string;
  readonly #key = createAccount();
  readonly jwt: string;

  constructor(operator: KeyPair, name: string, options: { jetstream?: boolean } = {}) {
    this.name = name;
    const limits: Record<string, unknown> = {
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
      Object.assign(limits, { mem_storage: unlimited, disk_storage: unlimited });
    this.jwt = encodeJwt(
      { sub: this.publicKey, name, nats: { limits, type: 'account', version: 2 } },
      operator,
    );
  }

  get publicKey(): string {
    return this.#key.getPublicKey();
  }

  /** A new user of this account, allowed everything the account allows. */
  user(name: string, options: TestUserOptions = {}): TestUser {
    const key = createUser();
    const jwt = encodeJwt(
      {
        sub: key.getPublicKey(),
        name,
        ...(options.expiresInSeconds === undefined
          ? {}
          : { exp: Math.floor(Date.now() / 1000) + options.expiresInSeconds }),
        nats: {
          pub: {},
          sub: {},
          subs: unlimited,
          data: unlimited,
          payload: unlimited,
          type: 'user',
          version: 2,
        },
      },
      this.#key,
    );
    const seed = key.getSeed();
    return { publicKey: key.getPublicKey(), jwt, seed, creds: credsFile(jwt, seed) };
  }
}

/**
 * An operator with a system account (SYS) and the accounts asked for; `config()` is the
 * nats-server config text of operator mode trusting them through a memory resolver.
 */
export class TestOperator {
  readonly #key = createOperator();
  readonly system: TestAccount;
  readonly #accounts: TestAccount[] = [];

  constructor() {
    this.system = this.account('SYS');
  }

  /** A new account signed by the operator (with unlimited JetStream if asked). */
  account(name: string, options: { jetstream?: boolean } = {}): TestAccount {
    const account = new TestAccount(this.#key, name, options);
    this.#accounts.push(account);
    return account;
  }

  /** `operator`, `system_account`, `resolver: MEMORY` and `resolver_preload` of every account. */
  config(): string {
    const operatorJwt = encodeJwt(
      {
        sub: this.#key.getPublicKey(),
        name: 'test-operator',
        nats: { type: 'operator', version: 2, system_account: this.system.publicKey },
      },
      this.#key,
    );
    const preload = this.#accounts.map((a) => `  ${a.publicKey}: ${a.jwt}`).join('\n');
    return [
      `operator: ${operatorJwt}`,
      `system_account: ${this.system.publicKey}`,
      'resolver: MEMORY',
      `resolver_preload: {\n${preload}\n}`,
    ].join('\n');
  }
}
