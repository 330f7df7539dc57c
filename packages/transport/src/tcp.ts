import { isIP, connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { BaseConnection } from './base-connection.js';
import { readGreeting } from './greeting.js';
import type {
  TlsOptions,
  Transport,
  TransportConnection,
  TransportConnectOptions,
} from './transport.js';
import { TransportError } from './transport-error.js';

export interface TcpTransportOptions {
  /**
   * Opens the raw socket instead of `node:net` (a proxy tunnel, a unix socket, a test double).
   * It may return a socket that is still connecting. TLS, when needed, is layered on top of it.
   */
  socketFactory?: (host: string, port: number) => Socket | Promise<Socket>;
  /** Outbound bytes buffered before `send` reports back-pressure (default 1 MiB). */
  highWaterMark?: number;
}

const DEFAULT_PORT = 4222;

/** NATS over TCP for Node: `nats://` (TLS if the server asks) and `tls://` (TLS required). */
export function tcpTransport(options: TcpTransportOptions = {}): Transport {
  return {
    name: 'tcp',
    schemes: ['nats', 'tls'],
    defaultPort: () => DEFAULT_PORT,
    connect: (url, connectOptions) => openTcp(url, connectOptions ?? {}, options),
  };
}

async function openTcp(
  url: URL,
  options: TransportConnectOptions,
  transportOptions: TcpTransportOptions,
): Promise<TransportConnection> {
  if (url.protocol !== 'nats:' && url.protocol !== 'tls:') {
    throw new TransportError('UNSUPPORTED_URL', `tcp transport cannot open ${url.protocol}// URLs`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : DEFAULT_PORT;
  const tls = options.tls ?? (url.protocol === 'tls:' ? {} : undefined);
  if (options.tls === null && url.protocol === 'tls:') {
    throw new TransportError('TLS_REQUIRED', `${url.href} asks for TLS but tls is null`);
  }

  let socket: Socket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    if (options.timeout === undefined) return;
    timer = setTimeout(() => {
      reject(
        new TransportError(
          'TIMEOUT',
          `connecting to ${url.host} timed out after ${options.timeout} ms`,
        ),
      );
    }, options.timeout);
  });
  const handshake = async () => {
    socket = await openSocket(host, port, transportOptions);
    if (tls?.handshakeFirst) socket = await startTls(socket, host, tls);
    const greeting = await readGreeting(socket);
    let encrypted = tls?.handshakeFirst === true;
    let early: Uint8Array[] = [greeting.line, ...greeting.rest];
    if (!encrypted) {
      const serverRequires = greeting.info.tls_required === true;
      if (serverRequires && options.tls === null) {
        throw new TransportError('TLS_REQUIRED', `${url.host} requires TLS but tls is null`);
      }
      if (tls && !serverRequires && greeting.info.tls_available !== true) {
        throw new TransportError('TLS_UNAVAILABLE', `${url.host} does not offer TLS`);
      }
      if (serverRequires || tls) {
        // The server waits for our handshake before sending anything else, so nothing is dropped.
        socket = await startTls(socket, host, tls ?? {});
        encrypted = true;
        early = [greeting.line];
      }
    }
    return new TcpConnection(socket, url, encrypted, early, transportOptions.highWaterMark);
  };
  const opening = handshake();
  try {
    return await Promise.race([opening, timedOut]);
  } catch (error) {
    socket?.destroy();
    // A socket still being opened when time ran out is closed as soon as it is up.
    opening.then(
      (conn) => conn.close(error as Error),
      () => undefined,
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function openSocket(host: string, port: number, options: TcpTransportOptions): Promise<Socket> {
  return Promise.resolve(options.socketFactory?.(host, port) ?? netConnect({ host, port })).then(
    (socket) =>
      new Promise<Socket>((resolve, reject) => {
        socket.setNoDelay(true);
        if (!socket.pending) return resolve(socket);
        const onError = (error: Error) => {
          reject(
            new TransportError(
              'CONNECTION_REFUSED',
              `cannot reach ${host}:${port}: ${error.message}`,
              { cause: error },
            ),
          );
        };
        socket.once('error', onError);
        socket.once('connect', () => {
          socket.off('error', onError);
          resolve(socket);
        });
      }),
  );
}

function startTls(socket: Socket, host: string, tls: TlsOptions): Promise<Socket> {
  const options: ConnectionOptions = {
    socket,
    ca: tls.ca as ConnectionOptions['ca'],
    cert: tls.cert as ConnectionOptions['cert'],
    key: tls.key as ConnectionOptions['key'],
    rejectUnauthorized: tls.rejectUnauthorized ?? true,
  };
  const servername = tls.servername ?? (isIP(host) ? undefined : host);
  if (servername) options.servername = servername;
  return new Promise((resolve, reject) => {
    const secure = tlsConnect(options);
    const onError = (error: Error) => {
      secure.destroy();
      reject(
        new TransportError('TLS_FAILED', `TLS handshake with ${host} failed: ${error.message}`, {
          cause: error,
        }),
      );
    };
    secure.once('error', onError);
    secure.once('secureConnect', () => {
      secure.off('error', onError);
      secure.setNoDelay(true);
      resolve(secure);
    });
  });
}

/** How long a graceful close waits for the peer before tearing the socket down. */
const CLOSE_GRACE_MS = 2000;

class TcpConnection extends BaseConnection {
  readonly url: URL;
  readonly encrypted: boolean;
  readonly #socket: Socket;
  readonly #highWaterMark: number;
  #error: Error | undefined;

  constructor(
    socket: Socket,
    url: URL,
    encrypted: boolean,
    early: Uint8Array[],
    highWaterMark?: number,
  ) {
    super();
    this.url = url;
    this.encrypted = encrypted;
    this.#socket = socket;
    this.#highWaterMark = highWaterMark ?? 1024 * 1024;
    for (const chunk of early) if (chunk.length > 0) this.received(chunk);
    socket.pause();
    socket.on('data', (chunk: Uint8Array) => this.received(chunk));
    socket.on('error', (error: Error) => {
      this.#error ??= new TransportError(
        'CONNECTION_LOST',
        `connection to ${url.host} failed: ${error.message}`,
        {
          cause: error,
        },
      );
    });
    socket.once('close', () => this.ended(this.#error));
  }

  send(bytes: Uint8Array): boolean {
    if (this.isClosed || this.#socket.destroyed) return true;
    this.#socket.write(bytes);
    return this.#socket.writableLength < this.#highWaterMark;
  }

  /** Node copies a write into the kernel at once when it can; until then the stream holds it. */
  get pendingBytes(): number {
    return this.#socket.writableLength;
  }

  drained(): Promise<void> {
    if (this.isClosed || this.#socket.writableLength < this.#highWaterMark)
      return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#socket.off('drain', done);
        this.#socket.off('close', done);
        resolve();
      };
      this.#socket.on('drain', done);
      this.#socket.on('close', done);
    });
  }

  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  async close(error?: Error): Promise<void> {
    if (this.isClosed) return;
    if (error) {
      this.#error ??= error;
      this.#socket.destroy();
    } else {
      // The peer's FIN must be read before 'close' fires, so a paused socket has to flow again.
      this.#socket.resume();
      this.#socket.end();
      const timer = setTimeout(() => this.#socket.destroy(), CLOSE_GRACE_MS);
      timer.unref?.();
      void this.closed.then(() => clearTimeout(timer));
    }
    await this.closed;
  }
}
