import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';

/**
 * Minimal NATS JWTs (operator → account → user) signed with real NKeys, enough for nats-server's
 * operator mode with a memory resolver. Test-only: production JWTs come from nsc or an auth service.
 */
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const text = (s: string) => new TextEncoder().encode(s);

function sign(claims: Record<string, unknown>, issuer: KeyPair): string {
  const header = b64url(text(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' })));
  const body = b64url(
    text(
      JSON.stringify({
        jti: `T${Date.now()}${Math.random()}`,
        iat: Math.floor(Date.now() / 1000),
        ...claims,
      }),
    ),
  );
  const signature = b64url(issuer.sign(text(`${header}.${body}`)));
  return `${header}.${body}.${signature}`;
}

export interface OperatorSetup {
  /** nats-server config text for operator mode. */
  config: string;
  userJwt: string;
  userSeed: Uint8Array;
  /** The text of a .creds file for the user. */
  creds: string;
}

export function operatorSetup(options: { userExpiresInSeconds?: number } = {}): OperatorSetup {
  const operator = createOperator();
  const account = createAccount();
  const user = createUser();
  const operatorJwt = sign(
    {
      iss: operator.getPublicKey(),
      sub: operator.getPublicKey(),
      name: 'op',
      nats: { type: 'operator', version: 2 },
    },
    operator,
  );
  const unlimited = {
    subs: -1,
    data: -1,
    payload: -1,
    imports: -1,
    exports: -1,
    wildcards: true,
    conn: -1,
    leaf: -1,
  };
  const accountJwt = sign(
    {
      iss: operator.getPublicKey(),
      sub: account.getPublicKey(),
      name: 'acc',
      nats: { limits: unlimited, type: 'account', version: 2 },
    },
    operator,
  );
  const userJwt = sign(
    {
      iss: account.getPublicKey(),
      sub: user.getPublicKey(),
      name: 'user',
      ...(options.userExpiresInSeconds === undefined
        ? {}
        : { exp: Math.floor(Date.now() / 1000) + options.userExpiresInSeconds }),
      nats: { pub: {}, sub: {}, subs: -1, data: -1, payload: -1, type: 'user', version: 2 },
    },
    account,
  );
  const userSeed = user.getSeed();
  const creds = [
    '-----BEGIN NATS USER JWT-----',
    userJwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    '',
    '-----BEGIN USER NKEY SEED-----',
    new TextDecoder().decode(userSeed),
    '------END USER NKEY SEED------',
    '',
  ].join('\n');
  const config = [
    `operator: ${operatorJwt}`,
    'resolver: MEMORY',
    `resolver_preload: { ${account.getPublicKey()}: ${accountJwt} }`,
  ].join('\n');
  return { config, userJwt, userSeed, creds };
}
