/**
 * The CONNECT object a client sends after INFO, with a checked parser and nats-server's
 * defaults. Field names are the JSON tags of nats-server's `ClientOpts`; every field may
 * be omitted.
 */
import type { SubjectPermission } from './info.js';
import { type FieldKind, type ParseResult, parseWireJson } from './wire-json.js';

export interface ConnectInfo {
  /** Ask for `+OK` after every CONNECT, PUB/HPUB, SUB and UNSUB. Server default: true. */
  verbose?: boolean;
  /**
   * Extra checks, e.g. PUB subjects must be valid literals (`-ERR 'Invalid Publish
   * Subject'`). Server default: true.
   */
  pedantic?: boolean;
  /** The client requires TLS. Default false. */
  tls_required?: boolean;
  /** Token for token authentication. */
  auth_token?: string;
  /** User name for user/password authentication. */
  user?: string;
  /** Password for user/password authentication. */
  pass?: string;
  /** The user's NKey public key, proven by `sig`. */
  nkey?: string;
  /** Ed25519 signature of the INFO `nonce`, base64url without padding. */
  sig?: string;
  /** User JWT (only honoured in operator mode). */
  jwt?: string;
  /** Client name, shown in /connz. */
  name?: string;
  /** Client implementation language. */
  lang?: string;
  /** Client library version. */
  version?: string;
  /**
   * 0 = original protocol; 1 = the client handles asynchronous INFO (cluster updates,
   * lame duck). nats-server closes the connection for any other value.
   */
  protocol?: number;
  /** Deliver the client's own publishes to its own subscriptions. Server default: true. */
  echo?: boolean;
  /** The client understands HPUB/HMSG. Default false. */
  headers?: boolean;
  /**
   * Requests to subjects without subscribers get an immediate `NATS/1.0 503` status
   * message. Needs `headers: true`. Default false.
   */
  no_responders?: boolean;
  /** Account to bind to (system-level use with `new_account`). */
  account?: string;
  /** Create `account` if it does not exist. */
  new_account?: boolean;
  /** Routes/leafnodes only: subjects the remote may import. */
  import?: SubjectPermission;
  /** Routes/leafnodes only: subjects the remote may export. */
  export?: SubjectPermission;
  /** Leafnodes only: account the leafnode binds to on this server. */
  remote_account?: string;
  /** Signature from a trusted proxy (nats-server 2.12+). */
  proxy_sig?: string;
}

const CONNECT_FIELDS: Record<keyof ConnectInfo, FieldKind> = {
  verbose: 'boolean',
  pedantic: 'boolean',
  tls_required: 'boolean',
  auth_token: 'string',
  user: 'string',
  pass: 'string',
  nkey: 'string',
  sig: 'string',
  jwt: 'string',
  name: 'string',
  lang: 'string',
  version: 'string',
  protocol: 'integer',
  echo: 'boolean',
  headers: 'boolean',
  no_responders: 'boolean',
  account: 'string',
  new_account: 'boolean',
  import: 'permission',
  export: 'permission',
  remote_account: 'string',
  proxy_sig: 'string',
};

/**
 * Parses the JSON of a CONNECT line. Returns the typed info (omitted fields stay
 * omitted; see {@link connectDefaults}) or a WireJsonError when the text is not a JSON
 * object or a known field has the wrong type — cases where nats-server closes the
 * connection without -ERR. Unknown fields are kept and ignored. Never throws.
 */
export function parseConnectInfo(json: string): ParseResult<ConnectInfo> {
  return parseWireJson<ConnectInfo>(json, CONNECT_FIELDS, []);
}

/** A CONNECT with nats-server's default filled in for every flag the client omitted. */
export type ResolvedConnectInfo = ConnectInfo &
  Required<
    Pick<
      ConnectInfo,
      | 'verbose'
      | 'pedantic'
      | 'echo'
      | 'tls_required'
      | 'headers'
      | 'no_responders'
      | 'protocol'
      | 'name'
      | 'lang'
      | 'version'
    >
  >;

/**
 * Applies nats-server's defaults to a CONNECT: verbose, pedantic and echo are true
 * unless sent as false (the server pre-fills them before reading the JSON, so even
 * `CONNECT {}` turns verbose and pedantic on); the other flags default to false, protocol
 * to 0 and the strings to "". Returns a new object.
 */
export function connectDefaults(info: ConnectInfo): ResolvedConnectInfo {
  return {
    ...info,
    verbose: info.verbose ?? true,
    pedantic: info.pedantic ?? true,
    echo: info.echo ?? true,
    tls_required: info.tls_required ?? false,
    headers: info.headers ?? false,
    no_responders: info.no_responders ?? false,
    protocol: info.protocol ?? 0,
    name: info.name ?? '',
    lang: info.lang ?? '',
    version: info.version ?? '',
  };
}
