import type {
  ClusterOptions,
  LeafNodeOptions,
  RemoteLeafOptions,
  ServerOptions,
  TlsOptions,
} from '@slipstream/server';

/** A leaf node remote's `tls {}`: file names, and whether the hub's certificate goes unchecked. */
export interface RemoteTlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
  insecure?: boolean;
  timeout?: number;
}

/**
 * Everything the command line and the config file can set, in one shape, so that flags can
 * override the file key by key before it becomes the library's ServerOptions.
 */
export interface Settings
  extends Pick<
    ServerOptions,
    | 'host'
    | 'port'
    | 'serverName'
    | 'httpHost'
    | 'httpPort'
    | 'httpsPort'
    | 'monitoringAuth'
    | 'dashboard'
    | 'maxPayload'
    | 'maxPending'
    | 'maxControlLine'
    | 'maxConnections'
    | 'maxSubscriptions'
    | 'pingInterval'
    | 'pingMax'
    | 'writeDeadline'
    | 'authTimeout'
    | 'lameDuckDuration'
    | 'lameDuckGracePeriod'
    | 'authorization'
    | 'accounts'
    | 'mappings'
    | 'systemAccount'
    | 'operator'
    | 'noAuthUser'
    | 'allowNonTls'
  > {
  debug?: boolean;
  trace?: boolean;
  logFile?: string;
  pidFile?: string;
  /** Where to write `slipstream-server_<pid>.ports`, as nats-server's ports_file_dir. */
  portsFileDir?: string;
  jetstream?: {
    enabled?: boolean;
    storeDir?: string;
    maxMemory?: number;
    maxFile?: number;
    domain?: string;
    /** 'always' or milliseconds. */
    syncInterval?: 'always' | number;
    /** Milliseconds; the `$OBJ` API's wait for an upload's next chunk. */
    objectUploadTimeout?: number;
    maxPendingObjectUploads?: number;
    /** Atomic batch limits (`limits { batch {...} } }`); `timeout` in milliseconds. */
    atomicBatch?: {
      maxInflightPerStream?: number;
      maxInflightTotal?: number;
      maxMsgs?: number;
      timeout?: number;
    };
  };
  /**
   * nats-server's `leafnodes {}`: the library's options, but each `tls` names files (the port's
   * as the top-level `tls` below; a remote's `ca`, `cert`, `key`), read when the server starts.
   */
  leafNodes?: Omit<LeafNodeOptions, 'tls' | 'remotes'> & {
    tls?: Settings['tls'];
    remotes?: (Omit<RemoteLeafOptions, 'tls'> & { tls?: RemoteTlsFiles })[];
  };
  /**
   * nats-server's `cluster {}` and cluster flags: the library's options, with `listen`
   * (`[nats://][user:pass@]host:port` of --cluster, or the block's `host:port`) and `routes` as
   * given (--routes is one comma-separated string); `authorization.timeout` in milliseconds;
   * `tls` names files.
   */
  cluster?: Omit<ClusterOptions, 'routes' | 'tls'> & {
    listen?: string;
    routes?: string[] | string;
    /** File names, read when the server starts; `timeout` in milliseconds. */
    tls?: { cert: string; key: string; ca: string; insecure?: boolean; timeout?: number };
  };
  /** nats-server's `websocket {}`; `tls` as below, `handshakeTimeout` in milliseconds. */
  websocket?: {
    host?: string;
    port?: number;
    noTls?: boolean;
    tls?: Settings['tls'];
    compression?: boolean;
    sameOrigin?: boolean;
    allowedOrigins?: string[];
    handshakeTimeout?: number;
  };
  /** File names, read when the server starts; `timeout` and `handshakeFirstFallback` in milliseconds. */
  tls?: {
    enabled?: boolean;
    cert?: string;
    key?: string;
    ca?: string;
  } & Pick<
    TlsOptions,
    | 'verify'
    | 'timeout'
    | 'verifyAndMap'
    | 'pinnedCerts'
    | 'cipherSuites'
    | 'curvePreferences'
    | 'minVersion'
    | 'handshakeFirst'
    | 'handshakeFirstFallback'
  >;
}

type Nested = 'authorization' | 'jetstream' | 'tls' | 'cluster';
const nestedKeys: readonly Nested[] = ['authorization', 'jetstream', 'tls', 'cluster'];

/** Layers `top` over `base`: a key set in `top` wins, nested blocks merge key by key. */
export function mergeSettings(base: Settings, top: Settings): Settings {
  const merged: Settings = { ...base, ...top };
  for (const key of nestedKeys) {
    if (base[key] || top[key]) {
      (merged as Record<Nested, unknown>)[key] = { ...base[key], ...top[key] };
    }
  }
  return merged;
}

/** What the server does with no arguments at all: as nats-server, no monitoring unless asked for. */
export const defaultSettings: Readonly<Settings> = {
  host: '0.0.0.0',
  port: 4222,
};
