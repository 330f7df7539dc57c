/**
 * Where account JWTs come from (nats-server's `resolver`): `memory` holds the preloaded ones
 * only; `full` keeps each as `<dir>/<account public key>.jwt`, takes the preloaded ones too and
 * stores the updates the system account receives on `$SYS.REQ.CLAIMS.UPDATE`.
 */
export type ResolverOptions =
  | { type: 'memory'; preload?: Record<string, string> }
  | {
      type: 'full';
      dir: string;
      preload?: Record<string, string>;
      /** Accepted as nats-server's; deletions are not served yet. */
      allowDelete?: boolean;
      /** Accepted as nats-server's: the sync interval between servers (single server: unused). */
      interval?: number;
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
