import * as v3 from '@nats-io/transport-node';
import * as v2 from 'nats';

/** The slice of the official client API these tests use; both packages provide it. */
export interface Msg {
  readonly subject: string;
  readonly reply?: string;
  readonly data: Uint8Array;
  readonly headers?: { get(key: string): string; values(key: string): string[] };
  string(): string;
  respond(data?: Uint8Array | string, opts?: { headers?: unknown }): boolean;
}
export interface Subscription extends AsyncIterable<Msg> {
  unsubscribe(max?: number): void;
  drain(): Promise<void>;
  getProcessed(): number;
}
export interface Connection {
  readonly info?: { max_payload: number; version: string; headers?: boolean };
  publish(
    subject: string,
    data?: Uint8Array | string,
    opts?: { headers?: unknown; reply?: string },
  ): void;
  subscribe(
    subject: string,
    opts?: { queue?: string; max?: number; callback?: (err: unknown, msg: Msg) => void },
  ): Subscription;
  request(
    subject: string,
    data?: Uint8Array | string,
    opts?: { timeout: number; headers?: unknown },
  ): Promise<Msg>;
  flush(): Promise<void>;
  drain(): Promise<void>;
  close(): Promise<void>;
  isClosed(): boolean;
  status(): AsyncIterable<{ type: string }>;
}
export interface Headers {
  set(key: string, value: string): void;
  append(key: string, value: string): void;
}
export interface ConnectOptions {
  servers: string;
  noEcho?: boolean;
  name?: string;
  reconnect?: boolean;
  user?: string;
  pass?: string;
  token?: string;
  maxReconnectAttempts?: number;
  reconnectTimeWait?: number;
}

export interface OfficialClient {
  readonly name: string;
  connect(options: ConnectOptions): Promise<Connection>;
  headers(): Headers;
  isNoResponders(error: unknown): boolean;
  isMaxPayload(error: unknown): boolean;
  isAuthorizationError(error: unknown): boolean;
}

export const officialClients: readonly OfficialClient[] = [
  {
    name: '@nats-io/transport-node v3',
    connect: (options) => v3.connect(options) as unknown as Promise<Connection>,
    headers: () => v3.headers(),
    isNoResponders: (error) => error instanceof v3.RequestError && error.isNoResponders(),
    isMaxPayload: (error) =>
      error instanceof v3.InvalidArgumentError && /max_payload/.test(error.message),
    isAuthorizationError: (error) => error instanceof v3.AuthorizationError,
  },
  {
    name: 'nats 2.x',
    connect: (options) => v2.connect(options) as unknown as Promise<Connection>,
    headers: () => v2.headers(),
    isNoResponders: (error) =>
      error instanceof v2.NatsError && error.code === v2.ErrorCode.NoResponders,
    isMaxPayload: (error) =>
      error instanceof v2.NatsError && error.code === v2.ErrorCode.MaxPayloadExceeded,
    isAuthorizationError: (error) =>
      error instanceof v2.NatsError && error.code === v2.ErrorCode.AuthorizationViolation,
  },
];
