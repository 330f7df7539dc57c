import type { MsgHdrs, ServerInfo } from '@slipstream/protocol';
import type { TlsOptions, Transport } from '@slipstream/transport';
import type { SlowConsumerError } from './errors.js';

export type Payload = Uint8Array | string;

/** Credentials merged into CONNECT; the shapes of nats.js. */
export type Auth =
  | undefined
  | { auth_token: string }
  | { user: string; pass?: string }
  | { nkey: string; sig: string }
  | { jwt: string; nkey?: string; sig?: string };

/**
 * Produces credentials for one connection attempt, given the server's nonce. It is called again
 * at every reconnect, so rotated tokens or credentials are picked up.
 */
export type Authenticator = (nonce?: string) => Auth | Promise<Auth>;

export interface ConnectionOptions {
  /** Where to connect: `host:port`, `nats://`, `tls://`, `ws://`, `wss://` URLs. Default 127.0.0.1:4222. */
  servers?: string | string[];
  /** Shorthand for `servers: 127.0.0.1:<port>`. */
  port?: number;
  /**
   * What carries the bytes. The `node` build defaults to TCP, the `browser` build to the native
   * WebSocket; pass one to choose (e.g. `websocketTransport()` in Node).
   */
  transport?: Transport;
  /** Client name shown by the server's monitoring. */
  name?: string;
  /** Ask the server for +OK after every operation (debugging only). */
  verbose?: boolean;
  /** Ask the server for extra checks (debugging only). */
  pedantic?: boolean;
  /** Do not deliver this connection's own publishes to its subscriptions. */
  noEcho?: boolean;
  /** Use message headers (default true; requires a server that supports them). */
  headers?: boolean;
  /** Fail requests at once when nobody listens (default: on when headers are). */
  noResponders?: boolean;
  /** Milliseconds to establish a connection, handshake included (default 20000). */
  timeout?: number;
  /** Prefix of generated inboxes (default `_INBOX`). */
  inboxPrefix?: string;
  /** Milliseconds between client pings (default 120000). */
  pingInterval?: number;
  /** Unanswered pings before the connection is considered stale (default 2). */
  maxPingOut?: number;
  /** Reconnect when the connection drops (default true). */
  reconnect?: boolean;
  /** Attempts per server before it is dropped; -1 (the default) never gives up. */
  maxReconnectAttempts?: number;
  /** Milliseconds to wait before trying a server again (default 2000). */
  reconnectTimeWait?: number;
  /** Upper bound of the random delay added to reconnectTimeWait (default 100; 1000 for TLS). */
  reconnectJitter?: number;
  reconnectJitterTLS?: number;
  /** Computes the wait before the next reconnect round instead of timeWait + jitter. */
  reconnectDelayHandler?: () => number;
  /** Bytes of publishes kept while disconnected (default 8 MiB); beyond it publish throws. */
  reconnectBufSize?: number;
  /**
   * Bytes of frames kept while the socket pushes back (default 64 MiB); beyond it publish throws
   * OutboundBufferFullError instead of growing memory without end.
   */
  outboundBufSize?: number;
  /** Keep trying when the first connection fails, instead of rejecting `connect`. */
  waitOnFirstConnect?: boolean;
  /** Do not add servers the cluster announces in INFO connect_urls. */
  ignoreClusterUpdates?: boolean;
  /**
   * Keep reconnecting when the server refuses the credentials twice in a row with the same
   * error (by default the connection then closes with that error).
   */
  ignoreAuthErrorAbort?: boolean;
  /** Try servers in the given order instead of shuffling them. */
  noRandomize?: boolean;
  /** Log every protocol operation to the console. */
  debug?: boolean;
  user?: string;
  pass?: string;
  token?: string;
  authenticator?: Authenticator | Authenticator[];
  /** TLS settings; an object requires TLS, `null` forbids it. */
  tls?: TlsOptions | null;
}

export type Status =
  | { type: 'disconnect'; server: string }
  | { type: 'reconnecting'; server: string; attempt: number }
  | { type: 'reconnect'; server: string }
  | { type: 'forceReconnect' }
  | { type: 'update'; added?: string[]; deleted?: string[] }
  | { type: 'ldm'; server: string }
  | { type: 'error'; error: Error }
  | { type: 'ping'; pendingPings: number }
  | { type: 'staleConnection' }
  /** An iterator hit its pending limit; `error` counts what was dropped so far. */
  | { type: 'slowConsumer'; sub: Subscription; pending: number; error: SlowConsumerError }
  | { type: 'close'; error?: Error };

export interface Stats {
  inBytes: number;
  outBytes: number;
  inMsgs: number;
  outMsgs: number;
  /** Successful reconnects since connect. */
  reconnects: number;
}

export interface PublishOptions {
  reply?: string;
  headers?: MsgHdrs;
}

export type MsgCallback<T> = (err: Error | null, msg: T) => void | Promise<void>;

export interface SubscriptionOptions {
  /** Queue group: each message goes to one member of the group. */
  queue?: string;
  /** Unsubscribe automatically after this many messages. */
  max?: number;
  /** Fail the subscription with a TimeoutError when no message arrives within this many ms. */
  timeout?: number;
  /**
   * Handle messages with a function instead of iterating. An async function is not awaited: the
   * socket keeps being read while it runs.
   */
  callback?: MsgCallback<Msg>;
  /** Messages an iterator may hold before new ones are dropped (default 65536). */
  maxPendingMsgs?: number;
  /** Bytes an iterator may hold before new messages are dropped (default 64 MiB). */
  maxPendingBytes?: number;
}

export interface RequestOptions {
  /** Milliseconds to wait for the reply (default 1000). */
  timeout: number;
  headers?: MsgHdrs;
  /** Use a dedicated subscription on `reply` instead of the shared inbox. */
  noMux?: boolean;
  reply?: string;
}

export enum RequestStrategy {
  /** Collect replies until maxWait elapses. */
  Timer = 'timer',
  /** Stop after maxMessages replies (or maxWait). */
  Count = 'count',
  /** Stop when no reply came for `jitter` ms after the last one (or maxWait). */
  JitterTimer = 'jitterTimer',
  /** Stop at a reply with an empty payload (or maxWait). */
  SentinelMsg = 'sentinelMsg',
}

export interface RequestManyOptions {
  strategy: RequestStrategy;
  /** Overall limit in ms (default: the connection timeout). */
  maxWait: number;
  headers?: MsgHdrs;
  maxMessages?: number;
  /** Stall time for the jitterTimer strategy (default 300 ms). */
  jitter?: number;
  /** Use a subscription of this request's own instead of the shared inbox. */
  noMux?: boolean;
}

export interface Msg {
  readonly subject: string;
  readonly sid: number;
  readonly reply: string | undefined;
  readonly data: Uint8Array;
  /** Decoded on first access. */
  readonly headers: MsgHdrs | undefined;
  respond(payload?: Payload, options?: PublishOptions): boolean;
  json<T = unknown>(reviver?: (key: string, value: unknown) => unknown): T;
  string(): string;
}

export interface Subscription extends AsyncIterable<Msg> {
  readonly closed: Promise<Error | undefined>;
  unsubscribe(max?: number): void;
  drain(): Promise<void>;
  isDraining(): boolean;
  isClosed(): boolean;
  getSubject(): string;
  getReceived(): number;
  getProcessed(): number;
  getPending(): number;
  /** Messages dropped because a pending limit was reached. */
  getDropped(): number;
  getID(): number;
  getMax(): number | undefined;
}

export interface NatsConnection {
  /** The INFO of the server this connection talks to. */
  readonly info: ServerInfo | undefined;
  closed(): Promise<Error | undefined>;
  close(): Promise<void>;
  publish(subject: string, payload?: Payload, options?: PublishOptions): void;
  publishMessage(msg: Msg): void;
  respondMessage(msg: Msg): boolean;
  subscribe(subject: string, options?: SubscriptionOptions): Subscription;
  request(subject: string, payload?: Payload, options?: Partial<RequestOptions>): Promise<Msg>;
  requestMany(
    subject: string,
    payload?: Payload,
    options?: Partial<RequestManyOptions>,
  ): Promise<AsyncIterable<Msg>>;
  flush(): Promise<void>;
  drain(): Promise<void>;
  isClosed(): boolean;
  isDraining(): boolean;
  getServer(): string;
  status(): AsyncIterable<Status>;
  stats(): Stats;
  rtt(): Promise<number>;
  reconnect(): Promise<void>;
}
