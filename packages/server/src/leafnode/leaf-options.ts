import { ServerError } from '../errors.js';

/** One user a leaf node may log in as on our leaf node port, and the account it binds to. */
export interface LeafUser {
  user: string;
  password: string;
  /** Default `$G`. */
  account?: string;
}

/**
 * A server our server connects to as a leaf node (nats-server's `leafnodes { remotes = [...] }`):
 * our `account` and the account its credentials log in to on the hub share their subjects.
 */
export interface RemoteLeafOptions {
  /**
   * `nats-leaf://`, `nats://` or `tls://` URLs of the hub's leaf node port (`user:password@`
   * allowed); tried in turn (shuffled unless `noRandomize`).
   */
  urls: string[];
  /** Our account whose subjects the connection carries. Default `$G`. */
  account?: string;
  /** A `.creds` file (user JWT and seed) to log in to an operator-mode hub with. */
  credentials?: string;
  noRandomize?: boolean;
}

/** nats-server's `leafnodes {}`: the port other servers connect to as leaf nodes, and the remotes we connect to. */
export interface LeafNodeOptions {
  /** Interface of the leaf node port. Default: the client `host`. */
  host?: string;
  /** Port other servers connect to as leaf nodes; none opens unless set (`0` or `-1`: a free one). */
  port?: number;
  /** Who may connect to the leaf node port (without it, anyone, bound to `$G` or `account`). */
  authorization?: {
    user?: string;
    password?: string;
    /** The account a leaf logging in with `user`/`password` (or without any) binds to. */
    account?: string;
    users?: LeafUser[];
    /** Milliseconds a leaf has to send CONNECT. */
    timeout?: number;
  };
  remotes?: RemoteLeafOptions[];
  /** Milliseconds between attempts to connect to a remote. Default 1000 (nats-server's). */
  reconnectInterval?: number;
}

export interface ResolvedLeafNodeOptions {
  host: string | undefined;
  port: number | undefined;
  users: LeafUser[] | undefined;
  /** The account of a leaf that connects without logging in, when no users are configured. */
  account: string;
  authTimeout: number | undefined;
  remotes: ResolvedRemote[];
  reconnectInterval: number;
}

export interface ResolvedRemote {
  urls: URL[];
  account: string;
  credentials: string | undefined;
  noRandomize: boolean;
}

/** nats-server's DEFAULT_LEAF_NODE_RECONNECT. */
const DEFAULT_RECONNECT_INTERVAL = 1_000;
const GLOBAL_ACCOUNT = '$G';

export function resolveLeafNodes(
  given: LeafNodeOptions | undefined,
  accountExists: (name: string) => boolean,
): ResolvedLeafNodeOptions | undefined {
  if (!given) return undefined;
  const invalid = (message: string) => new ServerError('INVALID_OPTION', `leafNodes ${message}`);
  const port = given.port;
  if (port !== undefined && (!Number.isInteger(port) || port < -1 || port > 65535)) {
    throw invalid(`port must be a port number, got ${port}`);
  }
  const auth = given.authorization;
  const users = auth?.users
    ? auth.users.map((u) => ({ ...u }))
    : auth?.user !== undefined
      ? [{ user: auth.user, password: auth.password ?? '', account: auth.account }]
      : undefined;
  if (auth?.users && auth.user !== undefined) {
    throw invalid('authorization cannot have both user and users');
  }
  // As nats-server's validateLeafNode, in local config mode every account named must exist.
  const checkAccount = (name: string | undefined, where: string) => {
    if (name !== undefined && name !== '' && !accountExists(name)) {
      throw invalid(`cannot find local account "${name}" specified in leafnode ${where}`);
    }
  };
  checkAccount(auth?.account, 'authorization');
  for (const user of users ?? []) checkAccount(user.account, 'authorization');
  const remotes = (given.remotes ?? []).map((remote, index): ResolvedRemote => {
    if (remote.urls.length === 0) throw invalid(`remotes[${index}] needs at least one url`);
    const urls = remote.urls.map((text) => remoteUrl(text, index));
    checkAccount(remote.account, 'remote');
    return {
      urls,
      account: remote.account || GLOBAL_ACCOUNT,
      credentials: remote.credentials || undefined,
      noRandomize: remote.noRandomize ?? false,
    };
  });
  const reconnectInterval = given.reconnectInterval || DEFAULT_RECONNECT_INTERVAL;
  if (!Number.isFinite(reconnectInterval) || reconnectInterval < 0) {
    throw invalid(`reconnectInterval must be milliseconds, got ${reconnectInterval}`);
  }
  return {
    host: given.host,
    port: port === -1 ? 0 : port,
    users,
    account: auth?.account || GLOBAL_ACCOUNT,
    authTimeout: auth?.timeout,
    remotes,
    reconnectInterval,
  };
}

function remoteUrl(text: string, index: number): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `nats-leaf://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ServerError('INVALID_OPTION', `leafNodes remotes[${index}]: invalid url '${text}'`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'ws' || scheme === 'wss' || scheme === 'tls') {
    throw new ServerError(
      'INVALID_OPTION',
      `leafNodes remotes[${index}]: ${scheme}:// remotes are not supported yet (only nats-leaf:// and nats://)`,
    );
  }
  if (scheme !== 'nats-leaf' && scheme !== 'nats') {
    throw new ServerError(
      'INVALID_OPTION',
      `leafNodes remotes[${index}]: unknown url scheme '${scheme}'`,
    );
  }
  return url;
}
