import type { X509Certificate } from 'node:crypto';
import { GLOBAL_ACCOUNT } from '../accounts/account.js';
import type { AccountOptions } from '../accounts/account-options.js';
import { ServerError } from '../errors.js';
import { certificateUser } from '../tls/certificate-user.js';
import type { AuthorizationOptions, PermissionsOptions, UserOptions } from './auth-options.js';
import { isUserNkey, nonceSigned } from './nkey.js';
import { UserPermissions } from './permissions.js';
import { sameText, secretMatches } from './secret.js';

/** The credentials a client may put in CONNECT. */
export interface Credentials {
  user?: string;
  pass?: string;
  auth_token?: string;
  nkey?: string;
  sig?: string;
}

/**
 * Who a connection authenticated as, the account it belongs to, and what it may do (undefined
 * permissions: anything).
 */
export interface Identity {
  readonly user: string | undefined;
  readonly account: string;
  readonly permissions: UserPermissions | undefined;
  /** When the credentials expire (ms since the epoch; a JWT's `exp`): the connection is closed then. */
  readonly expiresAt?: number;
  /**
   * The user's own limits (a JWT's), read at login and again whenever its account's claims
   * change, when the user may also have been revoked or lost its signing key meanwhile.
   */
  readonly standing?: () => UserStanding;
}

/** A user's own limits; absent: none beyond the server's and the account's. */
export interface UserLimits {
  /** Bytes a message may carry (the user's and its account's payload limit). */
  readonly maxPayload?: number;
  /** Subscriptions it may hold at once (a user JWT's `subs`). */
  readonly maxSubscriptions?: number;
}

/** A JWT user's limits now, or why it may stay connected no longer. */
export type UserStanding = UserLimits | 'revoked' | 'signing key removed' | 'bearer refused';

interface Account {
  readonly pass: string;
  readonly identity: Identity;
}

const ANONYMOUS: Identity = { user: undefined, account: GLOBAL_ACCOUNT, permissions: undefined };

/** The users of one account and the permissions of those that have none of their own. */
interface UserGroup {
  readonly account: string;
  readonly users: readonly UserOptions[];
  readonly defaultPermissions: PermissionsOptions | undefined;
  /** Where the group is configured, for error messages. */
  readonly where: string;
}

/**
 * Checks CONNECT credentials against the authorization options the way nats-server does: an
 * nkey (the nonce signature) when nkey users exist and the client names one, else a user of
 * `users` or of an account's `users` (or no_auth_user for a client with no credentials), else
 * the single token or the single user. Passwords and tokens may be bcrypt hashes; such a check
 * answers with a promise.
 */
export class Authenticator {
  /** INFO carries a nonce to sign: there are nkey users. */
  readonly nonceRequired: boolean;
  readonly #users = new Map<string, Account>();
  /** The names of `#users`, for verify_and_map's look-up. */
  readonly #userNames: ReadonlySet<string>;
  readonly #nkeys = new Map<string, Identity>();
  readonly #token: string | undefined;
  readonly #single: { user: string; pass: string } | undefined;
  readonly #noAuthUser: Account | undefined;

  /**
   * Whether a server with these options checks credentials at all: it has an authorization
   * block, or users in its accounts.
   */
  static required(
    options: AuthorizationOptions | undefined,
    accounts: Readonly<Record<string, AccountOptions>> | undefined,
  ): boolean {
    return (
      options !== undefined ||
      Object.values(accounts ?? {}).some((account) => (account.users?.length ?? 0) > 0)
    );
  }

  /** Throws ServerError INVALID_OPTION for options nats-server would refuse too. */
  constructor(
    options: AuthorizationOptions = {},
    noAuthUser?: string,
    accounts: Readonly<Record<string, AccountOptions>> = {},
  ) {
    const { user, pass, token, users, defaultPermissions } = options;
    const groups: UserGroup[] = [
      { account: GLOBAL_ACCOUNT, users: users ?? [], defaultPermissions, where: 'users' },
    ];
    for (const [account, entry] of Object.entries(accounts)) {
      if (!entry.users?.length) continue;
      groups.push({
        account,
        users: entry.users,
        defaultPermissions: entry.defaultPermissions,
        where: `accounts.${account}.users`,
      });
    }
    const accountUsers = groups.length > 1;
    if (token !== undefined && (user !== undefined || pass !== undefined)) {
      throw invalid('authorization takes a token or a user, not both');
    }
    if (users !== undefined && (user !== undefined || token !== undefined)) {
      throw invalid('authorization takes a users list, or a single user or token, not both');
    }
    if (accountUsers && user !== undefined) {
      throw invalid('authorization cannot have a single user and accounts with users');
    }
    if (accountUsers && token !== undefined) {
      throw invalid('authorization cannot have a token and accounts with users');
    }
    if (token === undefined && user === undefined && users === undefined && !accountUsers) {
      throw invalid('authorization needs a token, a user or a users list');
    }
    this.#token = token;
    this.#single = user === undefined ? undefined : { user, pass: pass ?? '' };
    for (const group of groups) this.#addUsers(group);
    if (noAuthUser !== undefined) {
      this.#noAuthUser = this.#users.get(noAuthUser);
      if (!this.#noAuthUser) {
        throw invalid(
          `noAuthUser ${JSON.stringify(noAuthUser)} is not a user of authorization.users or of an account`,
        );
      }
    }
    this.nonceRequired = this.#nkeys.size > 0;
    this.#userNames = new Set(this.#users.keys());
  }

  #addUsers({ account, users, defaultPermissions, where: list }: UserGroup): void {
    const defaults =
      defaultPermissions &&
      new UserPermissions(
        defaultPermissions,
        account === GLOBAL_ACCOUNT
          ? 'defaultPermissions'
          : `accounts.${account}.defaultPermissions`,
      );
    for (const [i, entry] of users.entries()) {
      const where = `${list}[${i}]`;
      const permissions = entry.permissions
        ? new UserPermissions(entry.permissions, `${where}.permissions`)
        : defaults;
      if (entry.nkey !== undefined) {
        if (entry.user !== undefined || entry.pass !== undefined) {
          throw invalid(`${where}: an nkey user has no user name or password`);
        }
        if (!isUserNkey(entry.nkey))
          throw invalid(`${where}: not a public user nkey: ${entry.nkey}`);
        if (this.#nkeys.has(entry.nkey)) throw invalid(`${where}: duplicate nkey ${entry.nkey}`);
        this.#nkeys.set(entry.nkey, { user: entry.nkey, account, permissions });
      } else {
        if (entry.user === undefined) throw invalid(`${where}: needs a user or an nkey`);
        if (this.#users.has(entry.user)) throw invalid(`${where}: duplicate user ${entry.user}`);
        this.#users.set(entry.user, {
          pass: entry.pass ?? '',
          identity: { user: entry.user, account, permissions },
        });
      }
    }
  }

  /**
   * The identity of a client whose first operation is not CONNECT: no_auth_user's, if set (as
   * nats-server lets such a client in), else undefined (an authorization violation).
   */
  get withoutConnect(): Identity | undefined {
    return this.#noAuthUser?.identity;
  }

  /**
   * The identity the credentials prove, or undefined; `nonce` is the one this connection's INFO
   * carried. Under verify_and_map `certificate` is the client's (null: a plain client, which has
   * none): it, not a user name and password, picks the user of `users`.
   */
  authenticate(
    credentials: Credentials,
    nonce: string | undefined,
    certificate?: X509Certificate | null,
  ): Identity | undefined | Promise<Identity | undefined> {
    const { user, pass, auth_token: token, nkey, sig } = credentials;
    if (this.#nkeys.size > 0 && nkey !== undefined) {
      const identity = this.#nkeys.get(nkey);
      if (!identity || sig === undefined || nonce === undefined) return undefined;
      return nonceSigned(nkey, nonce, sig) ? identity : undefined;
    }
    if (this.#users.size > 0 && certificate !== undefined) {
      const name = certificate && certificateUser(certificate, this.#userNames);
      return name ? this.#users.get(name)!.identity : undefined;
    }
    if (this.#users.size > 0) {
      if (!user && !pass && !token && this.#noAuthUser) return this.#noAuthUser.identity;
      if (user) {
        const account = this.#users.get(user);
        return account && granted(secretMatches(account.pass, pass), account.identity);
      }
    }
    if (this.#token !== undefined) return granted(secretMatches(this.#token, token), ANONYMOUS);
    if (this.#single !== undefined) {
      // Both are compared, always, so a wrong user takes as long as a wrong password.
      const sameUser = sameText(this.#single.user, user ?? '');
      const samePass = secretMatches(this.#single.pass, pass);
      const identity = { user: this.#single.user, account: GLOBAL_ACCOUNT, permissions: undefined };
      return granted(samePass, identity, sameUser);
    }
    return undefined;
  }
}

function invalid(message: string): ServerError {
  return new ServerError('INVALID_OPTION', message);
}

function granted(
  match: boolean | Promise<boolean>,
  identity: Identity,
  also = true,
): Identity | undefined | Promise<Identity | undefined> {
  if (typeof match === 'boolean') return match && also ? identity : undefined;
  return match.then((ok) => (ok && also ? identity : undefined));
}
