import type { AccountNats, SigningKey } from '../accounts/account-claims.js';
import type { TrustedAccounts } from '../accounts/trusted-accounts.js';
import type { PermissionsOptions } from './auth-options.js';
import type { Identity, UserStanding } from './authenticator.js';
import { type Claims, isRevoked, type JwtPermissions, verifiedClaims } from './jwt.js';
import { isPublicKey, nonceSigned } from './nkey.js';
import { UserPermissions } from './permissions.js';
import { connectWindow, sourceAllowed } from './user-restrictions.js';

/** The CONNECT fields a JWT login uses. */
export interface JwtCredentials {
  jwt?: string;
  sig?: string;
}

/**
 * What a user may do and from where (nats-io/jwt v2 `UserPermissionLimits`): the user JWT's own,
 * or the template of the scoped signing key that issued it.
 */
export interface UserRights extends JwtPermissions {
  /** No nonce signature needed: the JWT alone logs in. */
  bearer_token?: boolean;
  /** CIDRs the client must connect from. */
  src?: unknown;
  /** Daily connect windows, in `times_location`'s wall clock. */
  times?: unknown;
  times_location?: unknown;
  allowed_connection_types?: string[];
  /** Subscriptions at once, and bytes a message may carry; -1: no limit. */
  subs?: number;
  payload?: number;
}

/** A user JWT's own claims (nats-io/jwt v2 `User`), as far as this server uses them. */
interface UserNats extends UserRights {
  type?: string;
  version?: number;
  /** The account, when a signing key of it (not the account key) issued the JWT. */
  issuer_account?: string;
}

/**
 * Operator mode's login, as nats-server's JWT branch of processClientOrLeafAuthentication: the
 * user JWT must be signed by a trusted account (its key or one of its signing keys; a scoped
 * key's template replaces the user's rights), unexpired and not revoked, the client must sign
 * the INFO nonce with the user's key unless the JWT is a bearer token, and connect from the
 * user's `src` within its `times`. The user's permissions (else the account's default
 * permissions) and its subscription and payload limits (with the account's payload limit) apply
 * to the connection.
 */
export class JwtAuthenticator {
  /** Every client signs the nonce (bearer tokens aside). */
  readonly nonceRequired = true;
  /** A client that skips CONNECT has no JWT: always refused. */
  readonly withoutConnect: Identity | undefined = undefined;

  constructor(
    private readonly trusted: TrustedAccounts,
    /** Whether the server has the account (accounts pushed after the start have none yet). */
    private readonly served: (account: string) => boolean,
    /** Gives the server the accounts the URL resolver fetched. */
    private readonly fetched: () => void,
  ) {}

  /**
   * `ip`: where the client connects from, for the user's `src`. A promise when the URL resolver
   * fetches the user's account first.
   */
  authenticate(
    credentials: JwtCredentials,
    nonce: string | undefined,
    _certificate: unknown,
    ip: string,
  ): Identity | undefined | Promise<Identity | undefined> {
    if (!credentials.jwt) return undefined;
    const user = verifiedClaims<UserNats>(credentials.jwt);
    if (typeof user === 'string' || user.nats.type !== 'user' || !isPublicKey(user.sub, 'U')) {
      return undefined;
    }
    const accountKey = user.nats.issuer_account ?? user.iss;
    if (this.trusted.get(accountKey) || !this.trusted.fetches) {
      return this.#login(user, accountKey, credentials, nonce, ip);
    }
    return this.trusted.fetch(accountKey).then((added) => {
      if (added) this.fetched();
      return this.#login(user, accountKey, credentials, nonce, ip);
    });
  }

  /** The rest of the login, once the user's account is known (or known to be missing). */
  #login(
    user: Claims<UserNats>,
    accountKey: string,
    credentials: JwtCredentials,
    nonce: string | undefined,
    ip: string,
  ): Identity | undefined {
    const account = this.trusted.get(accountKey);
    if (!account || !this.served(accountKey)) return undefined;
    this.trusted.lookedUp(accountKey);
    const granted = userRights(user, accountKey, account.nats);
    if (!granted) return undefined;
    const { rights } = granted;
    // nats-server's failBearer: the account's limits may refuse bearer tokens.
    if (rights.bearer_token && account.nats.limits?.disallow_bearer === true) return undefined;
    if (!rights.bearer_token) {
      const { sig } = credentials;
      if (sig === undefined || nonce === undefined || !nonceSigned(user.sub, nonce, sig)) {
        return undefined;
      }
    }
    if (isRevoked(account.nats.revocations, user.sub, user.iat ?? 0)) return undefined;
    if (!sourceAllowed(rights.src, ip)) return undefined;
    const window = connectWindow(rights.times, rights.times_location);
    if (!window.allowed) return undefined;
    const types = rights.allowed_connection_types;
    if (types?.length && !types.includes('STANDARD')) return undefined;
    // As nats-server: the connection closes when the JWT expires or its connect window ends.
    const ends = [
      user.exp ? user.exp * 1000 : undefined,
      window.remaining === undefined ? undefined : Date.now() + window.remaining,
    ].filter((at) => at !== undefined);
    try {
      const options =
        permissionOptions(rights) ?? permissionOptions(account.nats.default_permissions ?? {});
      return {
        user: user.sub,
        account: accountKey,
        permissions: options && new UserPermissions(options, `user JWT ${user.sub}`),
        ...(ends.length ? { expiresAt: Math.min(...ends) } : {}),
        standing: () => this.#standing(user, accountKey, granted.scope),
      };
    } catch {
      return undefined;
    }
  }

  /**
   * The user's standing under its account's claims now, as nats-server re-checks its clients
   * after a claims update: revoked, its signing key removed or its scope changed, else its
   * limits (its own, or its scope's, and the account's payload limit).
   */
  #standing(
    user: Claims<UserNats>,
    accountKey: string,
    scope: SigningKey | undefined,
  ): UserStanding {
    const account = this.trusted.get(accountKey)?.nats ?? {};
    if (isRevoked(account.revocations, user.sub, user.iat ?? 0)) return 'revoked';
    const granted = userRights(user, accountKey, account);
    if (!granted || JSON.stringify(granted.scope) !== JSON.stringify(scope)) {
      return 'signing key removed';
    }
    if (granted.rights.bearer_token && account.limits?.disallow_bearer === true) {
      return 'bearer refused';
    }
    // A v2 claim without a limit is 0, as nats-io/jwt decodes it; v1 ones had no limit.
    const limits = claimedLimits(granted.rights, (user.nats.version ?? 1) >= 2);
    const accountLimits = claimedLimits(account.limits ?? {}, (account.version ?? 1) >= 2);
    return {
      maxPayload: lowest(limits.payload, accountLimits.payload),
      maxSubscriptions: limits.subs,
    };
  }
}

/** The user's rights under the account's claims, and the scoped signing key that fixes them. */
interface GrantedRights {
  rights: UserRights;
  scope?: SigningKey;
}

/**
 * The user's own rights, or its scoped signing key's template; undefined when the key that
 * signed the user is not (or no longer) one of the account's.
 */
function userRights(
  user: Claims<UserNats>,
  accountKey: string,
  account: AccountNats,
): GrantedRights | undefined {
  if (user.iss === accountKey) return { rights: user.nats };
  const signer = account.signing_keys?.find(
    (key) => (typeof key === 'string' ? key : key.key) === user.iss,
  );
  if (signer === undefined) return undefined;
  return typeof signer === 'string'
    ? { rights: user.nats }
    : { rights: signer.template ?? {}, scope: signer };
}

/** A JWT's `subs` and `payload` limits; undefined: none (-1, or absent from an old claim). */
function claimedLimits(
  claims: { subs?: unknown; payload?: unknown },
  absentIsZero: boolean,
): { subs?: number; payload?: number } {
  const limit = (value: unknown) => {
    if (typeof value !== 'number') return absentIsZero ? 0 : undefined;
    return value < 0 ? undefined : value;
  };
  return { subs: limit(claims.subs), payload: limit(claims.payload) };
}

function lowest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** JWT permissions as permission options; undefined when they set none. */
function permissionOptions({ pub, sub, resp }: JwtPermissions): PermissionsOptions | undefined {
  const given = (side: JwtPermissions['pub']) =>
    side && (side.allow?.length || side.deny?.length)
      ? { allow: side.allow, deny: side.deny }
      : undefined;
  const publish = given(pub);
  const subscribe = given(sub);
  if (!publish && !subscribe && !resp) return undefined;
  return {
    ...(publish ? { publish } : {}),
    ...(subscribe ? { subscribe } : {}),
    // ttl is in nanoseconds; 0 takes the default, as nats-server.
    ...(resp ? { allowResponses: { max: resp.max ?? 0, expires: (resp.ttl ?? 0) / 1e6 } } : {}),
  };
}
