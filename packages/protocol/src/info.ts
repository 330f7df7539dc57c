import { type FieldKind, type ParseResult, parseWireJson } from './wire-json.js';

/**
 * The INFO object a server sends on accept (and again, asynchronously, to clients that
 * sent `protocol: 1`), with a checked parser. Field names are the JSON tags of
 * nats-server's `Info` struct; fields nats-server omits when empty are optional.
 */

/** Subject allow/deny lists, as routes exchange them in INFO and CONNECT. */
export interface SubjectPermission {
  allow?: string[];
  deny?: string[];
}

export interface ServerInfo {
  /** Unique id of the server: a 56-character NKey-style public key starting with 'N'. */
  server_id: string;
  /** Configured server name; nats-server uses the server_id when none is configured (absent before 2.2). */
  server_name?: string;
  /** Server version, e.g. "2.9.10". */
  version: string;
  /** Protocol version the server speaks; always 1 on current servers. */
  proto: number;
  /** Git commit the server was built from. */
  git_commit?: string;
  /** Go runtime version of nats-server (ours reports its own runtime; other servers may omit it). */
  go?: string;
  /** Host the client listener is bound to. */
  host: string;
  /** Port of the client listener. */
  port: number;
  /** True when the server understands HPUB/HMSG. Always sent by 2.2+; absent means no. */
  headers?: boolean;
  /** True when the client must authenticate in CONNECT. */
  auth_required?: boolean;
  /** True when the client must upgrade to TLS before CONNECT. */
  tls_required?: boolean;
  /** True when the server verifies client certificates. */
  tls_verify?: boolean;
  /** True when TLS is offered but not required. */
  tls_available?: boolean;
  /** Largest payload (headers + data) the server accepts in one message, in bytes. */
  max_payload: number;
  /** True when JetStream is enabled. */
  jetstream?: boolean;
  /** Advertised IP of the server. */
  ip?: string;
  /** Id the server gave this connection (CID in /connz). */
  client_id?: number;
  /** The client's IP address as the server sees it. */
  client_ip?: string;
  /** Challenge to sign (with the NKey/JWT credentials) in CONNECT `sig`. */
  nonce?: string;
  /** Name of the cluster this server belongs to. */
  cluster?: string;
  /** True when the cluster name was chosen dynamically rather than configured. */
  cluster_dynamic?: boolean;
  /** JetStream domain of this server. */
  domain?: string;
  /** Client URLs of the other servers in the cluster, for reconnecting. */
  connect_urls?: string[];
  /** WebSocket URLs of the other servers in the cluster. */
  ws_connect_urls?: string[];
  /** Lame-duck mode: the server is shutting down and clients should move elsewhere. */
  ldm?: boolean;
  /** Negotiated route/leafnode compression mode (nats-server 2.10+). */
  compression?: string;
  /** True when this INFO answers a CONNECT (routes and leafnodes). */
  connect_info?: boolean;
  /** Account a leafnode connection is bound to on the remote side. */
  remote_account?: string;
  /** True when the bound account is the system account (2.10+). */
  acc_is_sys?: boolean;
  /** JetStream API level the server implements (2.11+). */
  api_lvl?: number;
  /** Route only: subjects the remote may import. */
  import?: SubjectPermission;
  /** Route only: subjects the remote may export. */
  export?: SubjectPermission;
  /** Route only: leafnode origin cluster support. */
  lnoc?: boolean;
  /** Route only: leafnode origin cluster support for unsubscribe. */
  lnocu?: boolean;
  /** Route only: the server answers CONNECT with an INFO. */
  info_on_connect?: boolean;
  /** Route only: number of pooled route connections. */
  route_pool_size?: number;
  /** Route only: index of this connection in the route pool. */
  route_pool_idx?: number;
  /** Route only: account this dedicated route serves. */
  route_account?: string;
  /** Route only: request id of an account-added notification. */
  route_acc_add_reqid?: string;
  /** Route only: gossip mode byte. */
  gossip_mode?: number;
  /** Gateway only: name of the originating gateway. */
  gateway?: string;
  /** Gateway only: gateway URLs in the originating cluster. */
  gateway_urls?: string[];
  /** Gateway only: gateway URL of this server. */
  gateway_url?: string;
  /** Gateway only: command code for the receiving server. */
  gateway_cmd?: number;
  /** Gateway only: command payload (base64 in JSON). */
  gateway_cmd_payload?: string;
  /** Gateway only: uses the `$GNR.` prefix for mapped replies. */
  gateway_nrp?: boolean;
  /** Gateway only: switch all accounts to interest-only mode at once. */
  gateway_iom?: boolean;
  /** Leafnode only: leafnode URLs the remote can reconnect to. */
  leafnode_urls?: string[];
  /** The server's x25519 public key, used by auth callout (2.10+). */
  xkey?: string;
}

const SERVER_INFO_FIELDS: Record<keyof ServerInfo, FieldKind> = {
  server_id: 'string',
  server_name: 'string',
  version: 'string',
  proto: 'integer',
  git_commit: 'string',
  go: 'string',
  host: 'string',
  port: 'integer',
  headers: 'boolean',
  auth_required: 'boolean',
  tls_required: 'boolean',
  tls_verify: 'boolean',
  tls_available: 'boolean',
  max_payload: 'integer',
  jetstream: 'boolean',
  ip: 'string',
  client_id: 'number',
  client_ip: 'string',
  nonce: 'string',
  cluster: 'string',
  cluster_dynamic: 'boolean',
  domain: 'string',
  connect_urls: 'string[]',
  ws_connect_urls: 'string[]',
  ldm: 'boolean',
  compression: 'string',
  connect_info: 'boolean',
  remote_account: 'string',
  acc_is_sys: 'boolean',
  api_lvl: 'integer',
  import: 'permission',
  export: 'permission',
  lnoc: 'boolean',
  lnocu: 'boolean',
  info_on_connect: 'boolean',
  route_pool_size: 'integer',
  route_pool_idx: 'integer',
  route_account: 'string',
  route_acc_add_reqid: 'string',
  gossip_mode: 'integer',
  gateway: 'string',
  gateway_urls: 'string[]',
  gateway_url: 'string',
  gateway_cmd: 'integer',
  gateway_cmd_payload: 'string',
  gateway_nrp: 'boolean',
  gateway_iom: 'boolean',
  leafnode_urls: 'string[]',
  xkey: 'string',
};

/** The fields nats-server always sends (not `omitempty`), except `headers` (absent before 2.2). */
// Only what every NATS server has sent since 1.x: a client must still connect to an older
// nats-server or a compatible server that leaves out server_name or go.
const SERVER_INFO_REQUIRED = [
  'server_id',
  'version',
  'proto',
  'host',
  'port',
  'max_payload',
] as const;

/**
 * Parses the JSON of an INFO line (the text between `INFO ` and the line end). Returns
 * the typed info, or a {@link WireJsonError} when the text is not JSON, not an object,
 * lacks a field every server sends or has a field of the wrong type. Never throws.
 */
export function parseServerInfo(json: string): ParseResult<ServerInfo> {
  return parseWireJson<ServerInfo>(json, SERVER_INFO_FIELDS, SERVER_INFO_REQUIRED);
}
