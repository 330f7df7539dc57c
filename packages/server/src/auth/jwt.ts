import { fromPublic } from './nkey.js';

/** The subjects of one direction of a JWT's permissions (nats-io/jwt v2 `Permission`). */
export interface JwtSubjects {
  allow?: string[];
  deny?: string[];
}

/** Publish, subscribe and response permissions, as user claims and account defaults carry them. */
export interface JwtPermissions {
  pub?: JwtSubjects;
  sub?: JwtSubjects;
  /** Replies to received requests: `max` messages within `ttl` nanoseconds. */
  resp?: { max?: number; ttl?: number };
}

/** The claims every NATS JWT carries (nats-io/jwt v2 `ClaimsData`); `nats` is the kind's own. */
export interface Claims<N> {
  jti?: string;
  iat?: number;
  iss: string;
  sub: string;
  name?: string;
  exp?: number;
  nbf?: number;
  nats: N;
}

const decoder = new TextDecoder();

/**
 * The claims of a NATS JWT whose signature its issuer made (header `ed25519-nkey`, or v1's
 * `ed25519`), or the reason it is not one. Expiry and not-before are checked against `now`
 * (seconds), as nats-io/jwt's validation does; null: not checked, as nats-io/jwt validates the
 * activation tokens inside an account JWT.
 */
export function verifiedClaims<N>(
  jwt: string,
  now: number | null = Math.floor(Date.now() / 1000),
): Claims<N> | string {
  const parts = jwt.trim().split('.');
  if (parts.length !== 3) return 'not a JWT';
  const [head, body, signature] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: Claims<N>;
  try {
    header = JSON.parse(decoder.decode(Buffer.from(head, 'base64url')));
    claims = JSON.parse(decoder.decode(Buffer.from(body, 'base64url')));
  } catch {
    return 'malformed JWT';
  }
  const alg = typeof header.alg === 'string' ? header.alg.toLowerCase() : '';
  if (alg !== 'ed25519-nkey' && alg !== 'ed25519') return `unsupported algorithm ${alg}`;
  if (typeof claims !== 'object' || claims === null) return 'malformed claims';
  if (typeof claims.iss !== 'string' || typeof claims.sub !== 'string')
    return 'no issuer or subject';
  if (typeof claims.nats !== 'object' || claims.nats === null) return 'no nats claims';
  try {
    const signed = fromPublic(claims.iss).verify(
      Buffer.from(`${head}.${body}`),
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) return 'signature does not match the issuer';
  } catch {
    return 'issuer is not a public nkey';
  }
  if (now === null) return claims;
  if (claims.exp && claims.exp <= now) return 'expired';
  if (claims.nbf && claims.nbf > now) return 'not yet valid';
  return claims;
}

/**
 * nats-server's isRevoked: `revocations` (a key, or `*` for all, to the time in seconds up to
 * which its JWTs are revoked) covers a JWT of `key` issued at `issuedAt`.
 */
export function isRevoked(
  revocations: Readonly<Record<string, number>> | undefined,
  key: string,
  issuedAt: number,
): boolean {
  if (!revocations) return false;
  return [revocations[key], revocations['*']].some((at) => at !== undefined && at >= issuedAt);
}
