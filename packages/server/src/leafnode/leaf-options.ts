import { isValidSubscribeSubject } from '@slipstream/protocol';
import type { PermissionsOptions } from '../auth/auth-options.js';
import { UserPermissions } from '../auth/permissions.js';
import { ServerError } from '../errors.js';
import type { TlsOptions } from '../tls/tls-options.js';

/** One user a leaf node may log in as on our leaf node port, and the account it binds to. */
export interface LeafUser {
  user: string;
  password: string;
  /** Default `$G`. */
  account?: string;
  /**
   * What the leaf may publish and subscribe to, seen from its side (an extension: nats-server's
   * leaf users take none; there a leaf gets permissions by logging in as a user of
   * `authorization`, which ours also applies).
   */
  permissions?: PermissionsOptions;
}

/** A leaf user with its permissions compiled. */
export interface ResolvedLeafUser {
  user: string;
  password: string;
  account: string | undefined;
  permissions: UserPermissions | undefined;
}

/**
 * A server our server connects to as a leaf node (nats-server's `leafnodes { remotes = [...] }`):
 * our `account` and the account its credentials log in to on the hub share their subjects.
 */
export interface RemoteLeafOptions {
  /**
   * `nats-leaf://`, `nats://` or `tls://` URLs of the hub's leaf node port, or `ws://` / `wss://`
   * ones of its WebSocket port (`user:password@`
   * allowed); tried in turn (shuffled unless `noRandomize`).
   */
  urls: string[];
  /** Our account whose subjects the connection carries. Default `$G`. */
  account?: string;
  /** A `.creds` file (user JWT and seed) to log in to an operator-mode hub with. */
  credentials?: string;
  noRandomize?: boolean;
  /** Subjects whose messages we do not take from the hub (told to it; their interest not sent). */
  denyImports?: string[];
  /** Subjects whose messages we do not send to the hub. */
  denyExports?: string[];
  /**
   * TLS to the hub (also when its INFO requires it, or for a `tls://` URL): the CA that signed
   * its certificate, our certificate and key when it verifies ours; `insecure` skips checking its
   * certificate. `true`: the system's CAs.
   */
  tls?: true | RemoteTlsOptions;
}

export interface RemoteTlsOptions {
  ca?: string | Uint8Array;
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  insecure?: boolean;
  /** Milliseconds the handshake may take. Default 2000. */
  timeout?: number;
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
  /** TLS on the leaf node port: INFO says tls_required, and leaves upgrade before CONNECT. */
  tls?: TlsOptions;
  /** Milliseconds between attempts to connect to a remote. Default 1000 (nats-server's). */
  reconnectInterval?: number;
}

export interface ResolvedLeafNodeOptions {
  host: string | undefined;
  port: number | undefined;
  users: ResolvedLeafUser[] | undefined;
  /** The account of a leaf that connects without logging in, when no users are configured. */
  account: string;
  authTimeout: number | undefined;
  remotes: ResolvedRemote[];
  reconnectInterval: number;
  tls: ResolvedLeafTls | undefined;
}

/** The leaf node port's TLS: its context's parts, whether client certificates are verified, the handshake's time. */
export interface ResolvedLeafTls extends TlsOptions {
  verify: boolean;
  timeout: number;
}

export interface ResolvedRemote {
  urls: URL[];
  account: string;
  credentials: string | undefined;
  noRandomize: boolean;
  tls: RemoteTlsOptions | undefined;
  denyImports: string[];
  denyExports: string[];
}

/** nats-server's default TLS handshake timeout. */
const DEFAULT_TLS_TIMEOUT = 2_000;
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
  const users: ResolvedLeafUser[] | undefined = auth?.users
    ? auth.users.map((u, index) => ({
        user: u.user,
        password: u.password,
        account: u.account,
        permissions:
          u.permissions &&
          new UserPermissions(u.permissions, `leafNodes authorization.users[${index}].permissions`),
      }))
    : auth?.user !== undefined
      ? [
          {
            user: auth.user,
            password: auth.password ?? '',
            account: auth.account,
            permissions: undefined,
          },
        ]
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
    // As nats-server's validateLeafNode: a remote's URLs are all WebSocket ones or none.
    const webSocket = urls.map((url) => url.protocol === 'ws:' || url.protocol === 'wss:');
    if (webSocket.some((ws) => ws !== webSocket[0])) {
      throw invalid(
        `remotes[${index}]: remote leaf node configuration cannot have a mix of websocket and non-websocket urls`,
      );
    }
    checkAccount(remote.account, 'remote');
    const wantsTls = remote.tls !== undefined || urls.some((url) => url.protocol === 'tls:');
    return {
      urls,
      account: remote.account || GLOBAL_ACCOUNT,
      credentials: remote.credentials || undefined,
      noRandomize: remote.noRandomize ?? false,
      tls: wantsTls
        ? remote.tls === true || remote.tls === undefined
          ? {}
          : remote.tls
        : undefined,
      denyImports: subjects(remote.denyImports, `remotes[${index}].denyImports`),
      denyExports: subjects(remote.denyExports, `remotes[${index}].denyExports`),
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
    tls: leafTls(given.tls),
  };
}

/** The leaf node port's `tls`: a certificate and key, a CA to verify leaves' certificates with. */
function leafTls(tls: TlsOptions | undefined): ResolvedLeafTls | undefined {
  if (!tls) return undefined;
  const invalid = (message: string) =>
    new ServerError('INVALID_OPTION', `leafNodes tls ${message}`);
  if (!tls.cert || !tls.key) throw invalid('needs a cert and a key');
  const verify = tls.verify ?? false;
  if (verify && !tls.ca) throw invalid('verify needs a ca to check leaf certificates');
  const timeout = tls.timeout || DEFAULT_TLS_TIMEOUT;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw invalid(`timeout must be a positive number, got ${timeout}`);
  }
  return { ...tls, verify, timeout };
}

function subjects(given: string[] | undefined, where: string): string[] {
  for (const subject of given ?? []) {
    if (!isValidSubscribeSubject(subject)) {
      throw new ServerError('INVALID_OPTION', `leafNodes ${where}: invalid subject '${subject}'`);
    }
  }
  return [...(given ?? [])];
}

function remoteUrl(text: string, index: number): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `nats-leaf://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ServerError('INVALID_OPTION', `leafNodes remotes[${index}]: invalid url '${text}'`);
  }
  // Any scheme is dialled as a leaf node URL (nats.c's tests use `leaf://`), as nats-server
  // does; ws and wss are WebSocket ones, tls asks for TLS.
  if (url.hostname === '') {
    throw new ServerError(
      'INVALID_OPTION',
      `leafNodes remotes[${index}]: url '${text}' has no host`,
    );
  }
  return url;
}
