import type { AccountNats, TrustedAccounts } from '../accounts/trusted-accounts.js';
import type { PermissionsOptions } from './auth-options.js';
import type { Identity } from './authenticator.js';
import { type JwtPermissions, verifiedClaims } from './jwt.js';
import { isPublicKey, nonceSigned } from './nkey.js';
import { UserPermissions } from './permissions.js';

/** The CONNECT fields a JWT login uses. */
export interface JwtCredentials {
  jwt?: string;
  sig?: string;
}

/** A user JWT's own claims (nats-io/jwt v2 `User`), as far as this server uses them. */
interface UserNats extends JwtPermissions {
  type?: string;
  /** The account, when a signing key of it (not the account key) issued the JWT. */
  issuer_account?: string;
  /** No nonce signature needed: the JWT alone logs in. */
  bearer_token?: boolean;
  src?: unknown;
  times?: unknown;
  allowed_connection_types?: string[];
}

/** The user claims that restrict where and when a user connects, which this server cannot check. */
const UNCHECKED_RESTRICTIONS = ['src', 'times'] as const;

/**
 * Operator mode's login, as nats-server's JWT branch of processClientOrLeafAuthentication: the
 * user JWT must be signed by a trusted account (its key or one of its signing keys; a scoped
 * key's template replaces the user's permissions), unexpired and not revoked, and the client
 * must sign the INFO nonce with the user's key unless the JWT is a bearer token. The user's
 * permissions (else the account's default permissions) apply to the connection.
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
  ) {}

  authenticate(credentials: JwtCredentials, nonce: string | undefined): Identity | undefined {
    if (!credentials.jwt) return undefined;
    const user = verifiedClaims<UserNats>(credentials.jwt);
    if (typeof user === 'string' || user.nats.type !== 'user' || !isPublicKey(user.sub, 'U')) {
      return undefined;
    }
    const accountKey = user.nats.issuer_account ?? user.iss;
    const account = this.trusted.get(accountKey);
    if (!account || !this.served(accountKey)) return undefined;
    let permissions: JwtPermissions = user.nats;
    if (user.iss !== accountKey) {
      const signer = account.nats.signing_keys?.find(
        (key) => (typeof key === 'string' ? key : key.key) === user.iss,
      );
      if (signer === undefined) return undefined;
      if (typeof signer !== 'string') permissions = signer.template ?? {};
    }
    if (!user.nats.bearer_token) {
      const { sig } = credentials;
      if (sig === undefined || nonce === undefined || !nonceSigned(user.sub, nonce, sig)) {
        return undefined;
      }
    }
    if (revoked(account.nats, user.sub, user.iat ?? 0)) return undefined;
    // Refused rather than let in a client the restriction was meant to keep out.
    if (UNCHECKED_RESTRICTIONS.some((key) => user.nats[key] !== undefined)) return undefined;
    const types = user.nats.allowed_connection_types;
    if (types?.length && !types.includes('STANDARD')) return undefined;
    try {
      const options =
        permissionOptions(permissions) ?? permissionOptions(account.nats.default_permissions ?? {});
      return {
        user: user.sub,
        account: accountKey,
        permissions: options && new UserPermissions(options, `user JWT ${user.sub}`),
        ...(user.exp ? { expiresAt: user.exp * 1000 } : {}),
      };
    } catch {
      return undefined;
    }
  }
}

/** nats-server's isRevoked: all users (`*`) or this one, revoked at or after the JWT's issue. */
function revoked(account: AccountNats, user: string, issuedAt: number): boolean {
  const revocations = account.revocations ?? {};
  return [revocations['*'], revocations[user]].some((at) => at !== undefined && at >= issuedAt);
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
