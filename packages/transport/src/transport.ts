/**
 * The contract between a NATS client (or server) and whatever carries its bytes. It is kept small
 * on purpose: a connection is a duplex byte stream plus back-pressure and a close signal; all
 * protocol knowledge stays in the client.
 */

/** Receives the bytes of a connection as they arrive, and its end. */
export interface ByteSink {
  /** One chunk read from the peer. The chunk is never reused by the transport, so keeping it is safe. */
  data(chunk: Uint8Array): void;
  /** The connection ended; `error` is set when it ended because of a failure. Called once. */
  closed(error: Error | undefined): void;
}

/** TLS settings; which fields are honoured depends on the runtime (browsers use the page's TLS). */
export interface TlsOptions {
  /** Start TLS before the server's INFO (the server must be configured with `handshake_first`). */
  handshakeFirst?: boolean;
  /** PEM trust anchors; the runtime's defaults when omitted. */
  ca?: string | Uint8Array | Array<string | Uint8Array>;
  /** PEM client certificate and key for mutual TLS. */
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  /** Check the server certificate (default true). */
  rejectUnauthorized?: boolean;
  /** Name to verify the certificate against; the URL's host by default. */
  servername?: string;
}

export interface TransportConnectOptions {
  /** Give up when the connection (including any TLS handshake) is not up after this many ms. */
  timeout?: number;
  /**
   * TLS wanted by the caller. `undefined`: use TLS only when the URL or the server asks for it;
   * an object: TLS is required; `null`: never use TLS (fail if the server requires it).
   */
  tls?: TlsOptions | null;
}

/** An open byte stream to one server. */
export interface TransportConnection extends AsyncIterable<Uint8Array> {
  /** The URL this connection was opened to. */
  readonly url: URL;
  /** True when the bytes travel encrypted (TLS or wss). */
  readonly encrypted: boolean;
  /** Resolves (never rejects) once the connection is gone, with the error that ended it, if any. */
  readonly closed: Promise<Error | undefined>;
  /**
   * Starts delivering incoming bytes to `sink`. Bytes that arrived before this call are delivered
   * first; nothing is lost. Use either `listen` or async iteration, not both.
   */
  listen(sink: ByteSink): void;
  /**
   * Queues bytes for the peer. Returns false when the outbound buffer is above its high-water mark:
   * the caller should wait for `drained()` before sending more.
   */
  send(bytes: Uint8Array): boolean;
  /**
   * Bytes accepted by `send` that the connection still holds, not yet handed to the operating
   * system. When it reads 0 right after a `send`, the connection kept no reference to the bytes it
   * was given, so the caller may reuse that array. Connections that cannot tell leave it undefined
   * (the caller must then never reuse a sent array).
   */
  readonly pendingBytes?: number;
  /** Resolves when the outbound buffer is below its high-water mark again, or the connection closed. */
  drained(): Promise<void>;
  /** Stops reading until `resume()`; the runtime's own buffers then push back on the peer. */
  pause(): void;
  resume(): void;
  /**
   * Ends the connection: queued bytes are written first unless `error` is given, in which case the
   * connection is torn down at once. Resolves when it is closed.
   */
  close(error?: Error): Promise<void>;
}

/** Opens connections of one kind. Passed to the client's `connect({ transport })`. */
export interface Transport {
  /** Short name for logs and errors: 'tcp', 'websocket', ... */
  readonly name: string;
  /** URL schemes this transport understands, without the colon. The first is the default. */
  readonly schemes: readonly string[];
  /** Default port for a scheme, used when a server URL names none. */
  defaultPort(scheme: string): number;
  connect(url: URL, options?: TransportConnectOptions): Promise<TransportConnection>;
}
