import { BaseConnection } from './base-connection.js';
import type {
  TlsOptions,
  Transport,
  TransportConnection,
  TransportConnectOptions,
} from './transport.js';
import { TransportError } from './transport-error.js';

/** The part of the WHATWG WebSocket API this transport uses; the `ws` package provides it too. */
export interface WebSocketLike {
  binaryType: string;
  readonly bufferedAmount: number;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  /** `ws` in Node can stop reading; browsers cannot. */
  pause?(): void;
  resume?(): void;
}

export interface WebSocketTransportOptions {
  /**
   * Creates the socket instead of the runtime's WebSocket: a hook for runtimes without a global
   * WebSocket, custom headers or proxy agents. The URL keeps its path, so a server behind a
   * reverse proxy is reached as e.g. `wss://example.com/nats`.
   */
  socketFactory?: (url: string, tls: TlsOptions | undefined) => WebSocketLike;
  /** Outbound bytes buffered before `send` reports back-pressure (default 1 MiB). */
  highWaterMark?: number;
}

type DefaultFactory = (url: string, tls: TlsOptions | undefined) => WebSocketLike;

/** Builds the websocket transport around a runtime's way of creating sockets. */
export function createWebSocketTransport(
  defaultFactory: DefaultFactory,
  options: WebSocketTransportOptions = {},
): Transport {
  const factory = options.socketFactory ?? defaultFactory;
  return {
    name: 'websocket',
    schemes: ['ws', 'wss'],
    defaultPort: (scheme) => (scheme === 'wss' ? 443 : 80),
    connect: (url, connectOptions) =>
      openWebSocket(url, connectOptions ?? {}, factory, options.highWaterMark),
  };
}

function openWebSocket(
  url: URL,
  options: TransportConnectOptions,
  factory: DefaultFactory,
  highWaterMark = 1024 * 1024,
): Promise<TransportConnection> {
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    return Promise.reject(
      new TransportError(
        'UNSUPPORTED_URL',
        `websocket transport cannot open ${url.protocol}// URLs`,
      ),
    );
  }
  const encrypted = url.protocol === 'wss:';
  if (options.tls && !encrypted) {
    return Promise.reject(
      new TransportError('TLS_UNAVAILABLE', `TLS was asked for but ${url.href} is not wss://`),
    );
  }
  if (options.tls === null && encrypted) {
    return Promise.reject(
      new TransportError('TLS_REQUIRED', `${url.href} is wss:// but tls is null`),
    );
  }
  return new Promise((resolve, reject) => {
    let socket: WebSocketLike;
    try {
      socket = factory(url.href, options.tls ?? undefined);
    } catch (error) {
      reject(new TransportError('CONNECTION_REFUSED', `cannot open ${url.href}`, { cause: error }));
      return;
    }
    if (socket.binaryType === 'blob') socket.binaryType = 'arraybuffer';
    const timer =
      options.timeout === undefined
        ? undefined
        : setTimeout(() => {
            socket.onopen = socket.onclose = socket.onerror = null;
            socket.close();
            reject(
              new TransportError(
                'TIMEOUT',
                `connecting to ${url.host} timed out after ${options.timeout} ms`,
              ),
            );
          }, options.timeout);
    let failure: unknown;
    socket.onerror = (event) => {
      failure = event;
    };
    socket.onclose = (event) => {
      clearTimeout(timer);
      const reason = describe(failure) ?? `closed with code ${event.code}`;
      reject(
        new TransportError('CONNECTION_REFUSED', `cannot open ${url.href}: ${reason}`, {
          cause: failure,
        }),
      );
    };
    socket.onopen = () => {
      clearTimeout(timer);
      resolve(new WebSocketConnection(socket, url, encrypted, highWaterMark));
    };
  });
}

function describe(event: unknown): string | undefined {
  if (event && typeof event === 'object') {
    const e = event as { message?: unknown; error?: { message?: unknown } };
    if (typeof e.message === 'string') return e.message;
    if (typeof e.error?.message === 'string') return e.error.message;
  }
  return undefined;
}

function toBytes(data: unknown): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return undefined;
}

/** How often `drained()` looks at bufferedAmount: WebSocket has no drain event. */
const DRAIN_POLL_MS = 5;
const CLOSE_GRACE_MS = 2000;

class WebSocketConnection extends BaseConnection {
  readonly url: URL;
  readonly encrypted: boolean;
  readonly #socket: WebSocketLike;
  readonly #highWaterMark: number;
  #error: Error | undefined;

  constructor(socket: WebSocketLike, url: URL, encrypted: boolean, highWaterMark: number) {
    super();
    this.url = url;
    this.encrypted = encrypted;
    this.#socket = socket;
    this.#highWaterMark = highWaterMark;
    socket.pause?.();
    socket.onmessage = (event) => {
      const bytes = toBytes(event.data);
      if (bytes) this.received(bytes);
      else
        void this.close(
          new TransportError('CONNECTION_LOST', 'the server sent a text WebSocket frame'),
        );
    };
    socket.onerror = (event) => {
      this.#error ??= new TransportError(
        'CONNECTION_LOST',
        `connection to ${url.host} failed: ${describe(event) ?? 'error'}`,
        {
          cause: event,
        },
      );
    };
    socket.onclose = () => this.ended(this.#error);
  }

  send(bytes: Uint8Array): boolean {
    if (this.isClosed || this.#socket.readyState !== 1) return true;
    this.#socket.send(bytes);
    return this.#socket.bufferedAmount < this.#highWaterMark;
  }

  async drained(): Promise<void> {
    while (!this.isClosed && this.#socket.bufferedAmount >= this.#highWaterMark) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  pause(): void {
    this.#socket.pause?.();
  }

  resume(): void {
    this.#socket.resume?.();
  }

  async close(error?: Error): Promise<void> {
    if (this.isClosed) return;
    if (error) this.#error ??= error;
    const socket = this.#socket as WebSocketLike & { terminate?: () => void };
    if (error && socket.terminate) socket.terminate();
    else {
      // The closing handshake must be read, so a paused socket has to flow again.
      socket.resume?.();
      socket.close(1000);
    }
    const timer = setTimeout(() => {
      socket.terminate?.();
      this.ended(this.#error);
    }, CLOSE_GRACE_MS);
    await this.closed;
    clearTimeout(timer);
  }
}
