/**
 * Where account JWTs come from (nats-server's `resolver`): `memory` holds the preloaded ones
 * only; `url` fetches an account's JWT from `<url><account public key>` the first time a user of
 * it logs in (nats-account-server's `/jwt/v1/accounts/`); `full` keeps each as
 * `<dir>/<account public key>.jwt`, takes the preloaded ones too and stores the updates the
 * system account receives on `$SYS.REQ.CLAIMS.UPDATE`; `cache` reads such a directory and stores
 * updates of the accounts in use only.
 */
export type ResolverOptions =
  | { type: 'memory'; preload?: Record<string, string> }
  | { type: 'url'; url: string; preload?: Record<string, string> }
  | {
      type: 'full';
      dir: string;
      preload?: Record<string, string>;
      /** Accepted as nats-server's; deletions are not served yet. */
      allowDelete?: boolean;
      /** Accepted as nats-server's: the sync interval between servers (single server: unused). */
      interval?: number;
    }
  | {
      type: 'cache';
      dir: string;
      preload?: Record<string, string>;
      /**
       * Accepted as nats-server's: how long (ms) and how many JWTs the cache keeps before it
       * evicts them, to fetch them again from other servers (single server: not evicted).
       */
      ttl?: number;
      limit?: number;
    };

/**
 * Decentralized JWT authentication (nats-server's operator mode): clients log in with a user
 * JWT issued by an account the operator signed, and sign the INFO nonce with the user's nkey.
 */
export interface OperatorOptions {
  /** The trusted operators' JWTs (the text; the app reads `operator: <file>` into it). */
  jwts: string[];
  resolver: ResolverOptions;
}
