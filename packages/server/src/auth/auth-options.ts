/** Subjects a user may (`allow`) or may not (`deny`) use; deny wins. Wildcards as in SUB. */
export interface SubjectPermissionOptions {
  /** Only these subjects; absent = all. An empty publish list allows nothing; an empty subscribe list everything. */
  allow?: string[];
  /** Never these subjects. */
  deny?: string[];
}

/**
 * What one user may publish and subscribe to, as nats-server's `permissions {}` block. Subscribe
 * entries may name a queue group after a space (`"orders workers"`): such an entry applies to
 * queue subscriptions in that group (the queue name may hold wildcards).
 */
export interface PermissionsOptions {
  publish?: SubjectPermissionOptions;
  subscribe?: SubjectPermissionOptions;
  /**
   * Lets the user publish to the reply subject of each request it receives, even where publish
   * permissions forbid it: `max` replies per request (default 1) within `expires` milliseconds
   * (default 2 minutes). With it and no publish allow list, nothing else may be published.
   */
  allowResponses?: boolean | { max?: number; expires?: number };
}

/** One entry of `authorization { users = [...] }`: a user and password, or an nkey. */
export interface UserOptions {
  user?: string;
  /** Plain text, or a bcrypt hash (`$2a$…`) checked with bcrypt. */
  pass?: string;
  /** Public user nkey (`U…`): the client proves it holds the seed by signing the INFO nonce. */
  nkey?: string;
  /** Absent: the authorization's `defaultPermissions`, if any, else everything is allowed. */
  permissions?: PermissionsOptions;
}

/**
 * Client authentication, as nats-server's `authorization {}` block: one `token`, one `user` and
 * `pass`, or many `users`. Passwords and tokens may be bcrypt hashes.
 */
export interface AuthorizationOptions {
  user?: string;
  pass?: string;
  token?: string;
  users?: UserOptions[];
  /** Permissions of every user in `users` that has none of its own. */
  defaultPermissions?: PermissionsOptions;
}
