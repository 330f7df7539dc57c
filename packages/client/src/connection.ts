import {
  ClientSideParser,
  type ConnectInfo,
  encodeUtf8,
  FrameWriter,
  isValidPublishSubject,
  type MsgHdrsImpl,
  type ProtocolError,
  parseServerInfo,
  type ServerFrame,
  type ServerInfo,
} from '@slipstream/protocol';
import { type Transport, type TransportConnection, TransportError } from '@slipstream/transport';
import { authenticate } from './authenticator.js';
import {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  InvalidArgumentError,
  InvalidSubjectError,
  MaxPayloadExceededError,
  NatsError,
  OutboundBufferFullError,
  PermissionViolationError,
  ProtocolViolationError,
  ReconnectBufferFullError,
  type SlowConsumerError,
  StaleConnectionError,
  TimeoutError,
  UserAuthenticationExpiredError,
} from './errors.js';
import { type ResolvedOptions, resolveOptions } from './options.js';
import { Requester } from './requester.js';
import { errorFromServer } from './server-error.js';
import { type ServerEntry, ServerPool } from './servers.js';
import { StatusEvents } from './status-events.js';
import type { SubscriptionImpl } from './subscription.js';
import { Subscriptions } from './subscriptions.js';
import type {
  ConnectionOptions,
  Msg,
  NatsConnection,
  Payload,
  PublishOptions,
  RequestManyOptions,
  RequestOptions,
  Stats,
  Status,
  Subscription,
  SubscriptionOptions,
} from './types.js';
import { LANG, VERSION } from './version.js';

/** An empty payload, shared. */
export const Empty: Uint8Array = new Uint8Array(0);

enum State {
  Connecting,
  Connected,
  Reconnecting,
  Closed,
}

/** Publishes are written once per event-loop turn, or as soon as this many bytes are pending. */
const WRITE_THRESHOLD = 64 * 1024;
/** Server messages can carry a little more than max_payload (JetStream adds headers). */
const PAYLOAD_SLACK = 64 * 1024;
/** Server control lines (MSG subject + reply) are not bound by the client-side 4096 limit. */
const SERVER_CONTROL_LINE = 64 * 1024;

type PongWaiter = (error?: Error) => void;

interface Handshake {
  connectSent: boolean;
  settled: boolean;
  resolve(): void;
  reject(error: Error): void;
}

const nextTurn: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

/**
 * One client connection: it owns the socket of the moment, the protocol state on it, the
 * subscriptions that outlive sockets, and the reconnect loop.
 */
export class NatsConnectionImpl implements NatsConnection {
  info: ServerInfo | undefined;

  readonly #options: ResolvedOptions;
  readonly #transport: Transport;
  readonly #pool: ServerPool;
  #server: ServerEntry | undefined;
  #conn: TransportConnection | undefined;
  #parser: ClientSideParser | undefined;
  #handshake: Handshake | undefined;
  #state = State.Connecting;
  #draining = false;
  /** Set by drain once every subscription is drained, before the final flush (as nats.js). */
  #noMorePublishing = false;

  /** Outbound frames not yet handed to the socket; also the reconnect buffer while disconnected. */
  readonly #writer = new FrameWriter(64 * 1024);
  #writeScheduled = false;
  /** The socket reported back-pressure; writes wait for it to drain. */
  #blocked = false;
  /** Most bytes the writer may hold: outboundBufSize while connected, reconnectBufSize otherwise. */
  #writerLimit: number;
  /** The last subject publish accepted: a hot publish loop checks its subject once. */
  #lastValidSubject: string | undefined;
  #maxPayload = 1024 * 1024;
  #headersOn: boolean;

  readonly #subs: Subscriptions;
  readonly #requester: Requester;

  /** One entry per PING on the current socket, in order; null for keep-alive pings. */
  #pongs: Array<PongWaiter | null> = [];
  /** flush() calls made while disconnected, sent once a socket is up again. */
  #deferredPongs: PongWaiter[] = [];
  #pingsOut = 0;
  #pingTimer: ReturnType<typeof setInterval> | undefined;
  #wakeSleeper: (() => void) | undefined;

  readonly #stats: Stats = { inBytes: 0, outBytes: 0, inMsgs: 0, outMsgs: 0, reconnects: 0 };
  readonly #status: StatusEvents;
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (value: Error | undefined) => void;

  private constructor(options: ConnectionOptions & { transport: Transport }) {
    this.#options = resolveOptions(options);
    this.#transport = this.#options.transport;
    this.#headersOn = this.#options.headers;
    this.#writerLimit = this.#options.reconnectBufSize;
    this.#status = new StatusEvents(this.#options.debug);
    this.#subs = new Subscriptions(this.#subscriptionHost);
    this.#requester = new Requester({
      inboxPrefix: this.#options.inboxPrefix,
      requestManyWait: this.#options.timeout,
      publish: (subject, payload, options) => this.publish(subject, payload, options),
      subscribe: (subject, options) => this.#subscribe(subject, options),
      isClosed: () => this.isClosed(),
    });
    const servers = this.#options.servers ?? `127.0.0.1:${this.#options.port ?? 4222}`;
    this.#pool = new ServerPool(
      Array.isArray(servers) ? servers : [servers],
      this.#transport,
      !this.#options.noRandomize,
    );
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /** Connects to the first server that accepts; rejects if none does (unless waitOnFirstConnect). */
  static async connect(
    options: ConnectionOptions & { transport: Transport },
  ): Promise<NatsConnectionImpl> {
    const nc = new NatsConnectionImpl(options);
    await nc.#firstConnect();
    return nc;
  }

  // ---- publishing -------------------------------------------------------------------------

  publish(subject: string, payload?: Payload, options?: PublishOptions): void {
    this.#assertOpen();
    if (this.#noMorePublishing) throw new DrainingConnectionError();
    const data =
      payload === undefined ? Empty : typeof payload === 'string' ? encodeUtf8(payload) : payload;
    if (!(data instanceof Uint8Array)) {
      throw new InvalidArgumentError('payload must be a string or a Uint8Array');
    }
    // Before the first publish the cache is undefined: a missing subject must not match it.
    if (subject !== this.#lastValidSubject || subject === undefined) {
      if (typeof subject !== 'string' || !isValidPublishSubject(subject)) {
        throw new InvalidSubjectError(subject);
      }
      this.#lastValidSubject = subject;
    }
    let reply: string | undefined;
    let headers: Uint8Array | undefined;
    if (options !== undefined) {
      reply = options.reply || undefined;
      if (reply !== undefined && !isValidPublishSubject(reply))
        throw new InvalidSubjectError(reply);
      if (options.headers !== undefined) {
        if (!this.#headersOn)
          throw new InvalidArgumentError('headers are not enabled on this connection');
        const encode = (options.headers as Partial<MsgHdrsImpl>).encode;
        if (typeof encode !== 'function') {
          throw new InvalidArgumentError('headers must come from headers() of this package');
        }
        headers = encode.call(options.headers);
      }
    }
    const size = headers === undefined ? data.length : data.length + headers.length;
    if (size > this.#maxPayload) throw new MaxPayloadExceededError(size, this.#maxPayload);
    if (this.#writer.length + size > this.#writerLimit) this.#bufferFull();
    this.#writer.pub(subject, reply, data, headers);
    this.#stats.outMsgs++;
    this.#stats.outBytes += size;
    if (this.#writer.length >= WRITE_THRESHOLD) {
      if (this.#state === State.Connected) this.#writeNow();
    } else if (!this.#writeScheduled) {
      this.#scheduleWrite();
    }
  }

  publishMessage(msg: Msg): void {
    this.publish(msg.subject, msg.data, { reply: msg.reply, headers: msg.headers });
  }

  respondMessage(msg: Msg): boolean {
    if (!msg.reply) return false;
    this.publish(msg.reply, msg.data, { headers: msg.headers });
    return true;
  }

  // ---- subscribing ------------------------------------------------------------------------

  subscribe(subject: string, options: SubscriptionOptions = {}): Subscription {
    this.#assertOpen();
    if (this.#draining) throw new DrainingConnectionError();
    return this.#subscribe(subject, options);
  }

  #subscribe(subject: string, options: SubscriptionOptions): SubscriptionImpl {
    const sub = this.#subs.add(subject, options);
    if (this.#state === State.Connected) {
      this.#writer.sub(subject, sub.sid, sub.queue);
      if (sub.max !== undefined && sub.max > 0) this.#writer.unsub(sub.sid, sub.max);
      this.#scheduleWrite();
    }
    return sub;
  }

  /** The connection as its subscriptions and messages see it. */
  readonly #subscriptionHost = {
    publish: (subject: string, payload?: Payload, options?: PublishOptions) =>
      this.publish(subject, payload, options),
    unsubscribeWire: (sid: number, max?: number) => {
      if (this.#state !== State.Connected) return; // resubscription after reconnect covers it
      this.#writer.unsub(sid, max);
      this.#scheduleWrite();
    },
    forget: (sub: SubscriptionImpl) => this.#subs.forget(sub),
    flush: () => this.flush(),
    isClosed: () => this.isClosed(),
    callbackFailed: (error: unknown) => {
      this.#status.emit({
        type: 'error',
        error: error instanceof Error ? error : new Error(String(error)),
      });
    },
    slowConsumer: (sub: SubscriptionImpl, error: SlowConsumerError) => {
      this.#status.emit({ type: 'slowConsumer', sub, pending: sub.getPending(), error });
    },
  };

  // ---- request / reply --------------------------------------------------------------------

  request(subject: string, payload?: Payload, options: Partial<RequestOptions> = {}): Promise<Msg> {
    try {
      this.#assertOpen();
      if (this.#draining) throw new DrainingConnectionError();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#requester.request(subject, payload, options);
  }

  requestMany(
    subject: string,
    payload?: Payload,
    options: Partial<RequestManyOptions> = {},
  ): Promise<AsyncIterable<Msg>> {
    try {
      this.#assertOpen();
      if (this.#draining) throw new DrainingConnectionError();
      return Promise.resolve(this.#requester.requestMany(subject, payload, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // ---- flush, rtt, stats, status ----------------------------------------------------------

  flush(): Promise<void> {
    if (this.#state === State.Closed) return Promise.reject(new ClosedConnectionError());
    return new Promise((resolve, reject) => {
      const waiter: PongWaiter = (error) => (error ? reject(error) : resolve());
      if (this.#state === State.Connected) {
        this.#pongs.push(waiter);
        this.#writer.ping();
        this.#writeNow();
      } else {
        this.#deferredPongs.push(waiter);
      }
    });
  }

  async rtt(): Promise<number> {
    const start = performance.now();
    await this.flush();
    return performance.now() - start;
  }

  stats(): Stats {
    return { ...this.#stats };
  }

  status(): AsyncIterable<Status> {
    return this.#status.listen(this.#state === State.Closed);
  }

  getServer(): string {
    return this.#server?.hostport ?? '';
  }

  isClosed(): boolean {
    return this.#state === State.Closed;
  }

  isDraining(): boolean {
    return this.#draining;
  }

  closed(): Promise<Error | undefined> {
    return this.#closed;
  }

  // ---- shutdown ---------------------------------------------------------------------------

  async drain(): Promise<void> {
    this.#assertOpen();
    if (this.#draining) throw new DrainingConnectionError();
    this.#draining = true;
    await Promise.allSettled(this.#subs.all().map((sub) => sub.drain()));
    // Replies sent while handling the last messages went out above; from here on nothing may be
    // published, so the flush below covers everything the connection will ever send.
    this.#noMorePublishing = true;
    await this.flush().catch(() => undefined);
    await this.#close(undefined);
  }

  async close(): Promise<void> {
    await this.#close(undefined);
  }

  async reconnect(): Promise<void> {
    this.#assertOpen();
    if (this.#draining) throw new DrainingConnectionError();
    if (this.#state !== State.Connected) return;
    this.#status.emit({ type: 'forceReconnect' });
    await this.#conn?.close();
  }

  async #close(error: Error | undefined): Promise<void> {
    if (this.#state === State.Closed) {
      await this.#closed;
      return;
    }
    const wasConnected = this.#state === State.Connected;
    this.#state = State.Closed;
    this.#stopPings();
    this.#wakeSleeper?.();
    this.#handshake?.reject(new ClosedConnectionError());
    const conn = this.#conn;
    this.#conn = undefined;
    if (conn) {
      if (wasConnected && this.#writer.length > 0) conn.send(this.#writer.take());
      await conn.close();
    }
    const closedError = new ClosedConnectionError();
    const waiters = [...this.#pongs, ...this.#deferredPongs];
    this.#pongs = [];
    this.#deferredPongs = [];
    for (const waiter of waiters) waiter?.(closedError);
    this.#requester.failAll(closedError);
    for (const sub of this.#subs.all()) sub.fail(undefined);
    this.#status.emit(error ? { type: 'close', error } : { type: 'close' });
    this.#status.end();
    this.#resolveClosed(error);
  }

  #assertOpen(): void {
    if (this.#state === State.Closed) throw new ClosedConnectionError();
  }

  // ---- connecting -------------------------------------------------------------------------

  async #firstConnect(): Promise<void> {
    let lastError: unknown;
    for (let tried = 0; tried < this.#pool.size; tried++) {
      const entry = this.#pool.next(-1)!;
      try {
        await this.#attempt(entry);
        return;
      } catch (error) {
        entry.failures++;
        lastError = error;
      }
    }
    if (this.#options.waitOnFirstConnect) {
      this.#state = State.Reconnecting;
      const connected = new Promise<void>((resolve, reject) => {
        void this.#reconnectLoop(lastError, resolve, reject);
      });
      await connected;
      return;
    }
    this.#state = State.Closed;
    this.#resolveClosed(asError(lastError));
    throw lastError instanceof NatsError
      ? lastError
      : new ConnectionError(`could not connect to ${this.#options.servers ?? 'the server'}`, {
          cause: lastError,
        });
  }

  /** Opens a socket to `entry` and runs the INFO / CONNECT / PING / PONG handshake on it. */
  async #attempt(entry: ServerEntry): Promise<void> {
    entry.lastAttempt = Date.now();
    const { timeout, tls } = this.#options;
    // One budget for the socket, TLS and the NATS handshake together.
    const deadline = entry.lastAttempt + timeout;
    let conn: TransportConnection;
    try {
      conn = await this.#transport.connect(entry.url, { timeout, tls });
    } catch (error) {
      // However far it got, running out of time is a TimeoutError, as in nats.js.
      if (error instanceof TransportError && error.code === 'TIMEOUT')
        throw new TimeoutError({ cause: error });
      throw error;
    }
    if (this.#state === State.Closed) {
      await conn.close();
      throw new ClosedConnectionError();
    }
    const parser = new ClientSideParser(this.#sink, {
      maxControlLine: SERVER_CONTROL_LINE,
      maxPayload: this.#maxPayload + PAYLOAD_SLACK,
    });
    this.#parser = parser;
    this.#conn = conn;
    this.#server = entry;
    this.#pongs = [];
    this.#pingsOut = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const handshake: Handshake = {
          connectSent: false,
          settled: false,
          resolve: () => {
            if (handshake.settled) return;
            handshake.settled = true;
            resolve();
          },
          reject: (error) => {
            if (handshake.settled) return;
            handshake.settled = true;
            reject(error);
          },
        };
        this.#handshake = handshake;
        timer = setTimeout(
          () => handshake.reject(new TimeoutError()),
          Math.max(0, deadline - Date.now()),
        );
        conn.listen({
          data: (chunk) => parser.parse(chunk),
          closed: (error) => this.#onSocketClosed(conn, error),
        });
      });
    } catch (error) {
      if (this.#conn === conn) this.#conn = undefined;
      await conn.close(asError(error));
      throw error;
    } finally {
      clearTimeout(timer);
      this.#handshake = undefined;
    }
    this.#onConnected(entry, conn);
  }

  #onConnected(entry: ServerEntry, conn: TransportConnection): void {
    this.#state = State.Connected;
    this.#blocked = false;
    this.#writerLimit = this.#options.outboundBufSize;
    entry.failures = 0;
    entry.didConnect = true;
    entry.encrypted = conn.encrypted;
    // Subscriptions first, then what was published while disconnected, then deferred flushes.
    const resubscribe = new FrameWriter(1024);
    this.#subs.resubscribe(resubscribe);
    if (resubscribe.length > 0) conn.send(resubscribe.take());
    for (const waiter of this.#deferredPongs) {
      this.#pongs.push(waiter);
      this.#writer.ping();
    }
    this.#deferredPongs = [];
    this.#writeNow();
    this.#startPings();
  }

  async #sendConnect(
    conn: TransportConnection,
    info: ServerInfo,
    handshake: Handshake,
  ): Promise<void> {
    try {
      const auth = await authenticate(this.#options, info.nonce);
      if (handshake.settled || this.#conn !== conn) return;
      const o = this.#options;
      const connect = {
        verbose: o.verbose,
        pedantic: o.pedantic,
        tls_required: conn.encrypted,
        lang: LANG,
        version: VERSION,
        protocol: 1,
        echo: !o.noEcho,
        headers: this.#headersOn,
        no_responders: this.#headersOn && o.noResponders,
        ...(o.name === undefined ? {} : { name: o.name }),
        ...auth,
      } as ConnectInfo;
      const w = new FrameWriter(512);
      w.connect(connect);
      w.ping();
      this.#pongs.push((error) => (error ? handshake.reject(error) : handshake.resolve()));
      if (o.debug)
        console.debug(
          '[nats] > CONNECT',
          JSON.stringify({
            ...connect,
            pass: undefined,
            auth_token: undefined,
            jwt: undefined,
            sig: undefined,
          }),
        );
      conn.send(w.take());
    } catch (error) {
      handshake.reject(asError(error) ?? new ConnectionError('authentication failed'));
    }
  }

  // ---- incoming frames --------------------------------------------------------------------

  readonly #sink = {
    frame: (frame: ServerFrame) => {
      if (frame.op === 'MSG') {
        this.#stats.inMsgs++;
        this.#stats.inBytes +=
          frame.headers === undefined
            ? frame.payload.length
            : frame.payload.length + frame.headers.length;
        this.#subs
          .get(frame.sid)
          ?.deliver(frame.subject, frame.reply, frame.headers, frame.payload);
        return;
      }
      if (this.#options.debug)
        console.debug(
          '[nats] <',
          frame.op,
          'json' in frame ? frame.json : 'message' in frame ? frame.message : '',
        );
      switch (frame.op) {
        case 'PING':
          if (this.#state === State.Connected) {
            this.#writer.pong();
            this.#writeNow();
          } else {
            // Mid-handshake the shared writer holds publishes that must wait: answer on the side.
            const w = new FrameWriter(8);
            w.pong();
            this.#conn?.send(w.take());
          }
          break;
        case 'PONG': {
          this.#pingsOut = 0;
          this.#pongs.shift()?.();
          break;
        }
        case 'INFO':
          this.#onInfo(frame.json);
          break;
        case 'ERR':
          this.#onServerError(frame.message);
          break;
        case 'OK':
          break;
      }
    },
    error: (error: ProtocolError) => {
      void this.#conn?.close(
        new ProtocolViolationError(`bad data from the server: ${error.message}`, { cause: error }),
      );
    },
  };

  #onInfo(json: string): void {
    const parsed = parseServerInfo(json);
    if (!parsed.ok) {
      void this.#conn?.close(
        new ProtocolViolationError(`the server sent a bad INFO: ${parsed.error.message}`, {
          cause: parsed.error,
        }),
      );
      return;
    }
    const info = parsed.value;
    this.info = info;
    if (info.max_payload > 0) {
      this.#maxPayload = info.max_payload;
      if (this.#parser) this.#parser.maxPayload = info.max_payload + PAYLOAD_SLACK;
    }
    if (info.headers === false) this.#headersOn = false;
    const handshake = this.#handshake;
    if (handshake && !handshake.connectSent && this.#conn) {
      handshake.connectSent = true;
      void this.#sendConnect(this.#conn, info, handshake);
    }
    if (!this.#options.ignoreClusterUpdates) {
      const urls = this.#transport.name === 'websocket' ? info.ws_connect_urls : info.connect_urls;
      if (urls && urls.length > 0) {
        const { added, deleted } = this.#pool.update(urls, this.#server);
        if (added.length > 0 || deleted.length > 0)
          this.#status.emit({ type: 'update', added, deleted });
      }
    }
    if (info.ldm && !handshake) this.#status.emit({ type: 'ldm', server: this.getServer() });
  }

  #onServerError(text: string): void {
    const error = errorFromServer(text);
    if (this.#handshake) {
      this.#handshake.reject(error);
      return;
    }
    if (error instanceof PermissionViolationError) {
      if (error.operation === 'subscription') this.#subs.failRefused(error);
      // A refused request fails now rather than at its timeout, as in nats.js.
      else if (!this.#requester.failSubject(error.subject, error)) this.#subs.failRequest(error);
    }
    this.#status.emit({ type: 'error', error });
  }

  // ---- writing ----------------------------------------------------------------------------

  #scheduleWrite(): void {
    if (this.#writeScheduled) return;
    this.#writeScheduled = true;
    nextTurn(this.#writeTurn);
  }

  readonly #writeTurn = () => {
    this.#writeScheduled = false;
    if (this.#state === State.Connected) this.#writeNow();
  };

  /**
   * Hands pending frames to the socket unless it pushed back; while it does, frames keep
   * accumulating in the writer (bounded by outboundBufSize) and go out as one write on drain.
   */
  #writeNow(): void {
    const conn = this.#conn;
    if (this.#writer.length === 0 || !conn || this.#blocked) return;
    if (this.#sendPending(conn)) return;
    this.#blocked = true;
    void conn.drained().then(() => {
      if (this.#conn !== conn) return;
      this.#blocked = false;
      if (this.#state === State.Connected) this.#writeNow();
    });
  }

  /**
   * Hands the writer's bytes to the socket; returns false on back-pressure. Where the connection
   * says when it is done with them, the bytes go out without a copy and the writer's buffer is
   * reused: at 1 KiB per message that copy was a tenth of the publisher's CPU.
   */
  #sendPending(conn: TransportConnection): boolean {
    if (conn.pendingBytes === undefined) return conn.send(this.#writer.take());
    let accepted = true;
    this.#writer.writeTo((bytes) => {
      accepted = conn.send(bytes);
      return conn.pendingBytes === 0;
    });
    return accepted;
  }

  #bufferFull(): never {
    if (this.#state === State.Connected) throw new OutboundBufferFullError(this.#writerLimit);
    throw new ReconnectBufferFullError(this.#writerLimit);
  }

  // ---- keep-alive -------------------------------------------------------------------------

  #startPings(): void {
    this.#stopPings();
    if (this.#options.pingInterval <= 0) return;
    this.#pingTimer = setInterval(() => {
      if (this.#state !== State.Connected) return;
      if (this.#pingsOut >= this.#options.maxPingOut) {
        this.#status.emit({ type: 'staleConnection' });
        void this.#conn?.close(new StaleConnectionError());
        return;
      }
      this.#pingsOut++;
      this.#status.emit({ type: 'ping', pendingPings: this.#pingsOut });
      this.#pongs.push(null);
      this.#writer.ping();
      this.#writeNow();
    }, this.#options.pingInterval);
    (this.#pingTimer as { unref?: () => void }).unref?.();
  }

  #stopPings(): void {
    if (this.#pingTimer !== undefined) clearInterval(this.#pingTimer);
    this.#pingTimer = undefined;
  }

  // ---- losing and regaining the server ----------------------------------------------------

  #onSocketClosed(conn: TransportConnection, error: Error | undefined): void {
    if (this.#handshake && this.#conn === conn) {
      this.#handshake.reject(
        error ?? new ConnectionError('the server closed the connection during the handshake'),
      );
      return;
    }
    if (this.#conn !== conn || this.#state !== State.Connected) return;
    this.#conn = undefined;
    this.#parser = undefined;
    this.#writerLimit = this.#options.reconnectBufSize;
    this.#stopPings();
    // User flushes wait for the next socket; keep-alive pings die with this one.
    for (const waiter of this.#pongs) if (waiter) this.#deferredPongs.push(waiter);
    this.#pongs = [];
    const server = this.getServer();
    this.#status.emit({ type: 'disconnect', server });
    if (!this.#options.reconnect || this.#draining) {
      void this.#close(error ?? new ConnectionError(`disconnected from ${server}`));
      return;
    }
    this.#state = State.Reconnecting;
    void this.#reconnectLoop(error);
  }

  async #reconnectLoop(
    firstError: unknown,
    onConnected?: () => void,
    onGiveUp?: (error: unknown) => void,
  ): Promise<void> {
    let lastError = firstError;
    let attempt = 0;
    for (;;) {
      if (this.#state === State.Closed) return;
      const entry = this.#pool.next(this.#options.maxReconnectAttempts);
      if (!entry) {
        const error = new ConnectionError('no server left to reconnect to', { cause: lastError });
        onGiveUp?.(error);
        await this.#close(error);
        return;
      }
      await this.#sleep(this.#reconnectDelay(entry));
      // isClosed(), not a field test: TypeScript would keep the loop-top narrowing across the await.
      if (this.isClosed()) return;
      attempt++;
      if (!onConnected)
        this.#status.emit({ type: 'reconnecting', server: entry.hostport, attempt });
      try {
        await this.#attempt(entry);
      } catch (error) {
        entry.failures++;
        // The same credentials refused twice in a row will not start working: stop, like nats.js.
        if (!this.#options.ignoreAuthErrorAbort && sameAuthError(lastError, error)) {
          onGiveUp?.(error);
          await this.#close(error as Error);
          return;
        }
        lastError = error;
        this.#pool.prune(this.#options.maxReconnectAttempts);
        continue;
      }
      if (onConnected) {
        onConnected();
      } else {
        this.#stats.reconnects++;
        this.#status.emit({ type: 'reconnect', server: entry.hostport });
      }
      return;
    }
  }

  #reconnectDelay(entry: ServerEntry): number {
    if (entry.lastAttempt === 0) return 0;
    const o = this.#options;
    // TLS may come from the URL, the tls option, or the server requiring it (seen last time).
    const tls =
      entry.encrypted ||
      (o.tls !== undefined && o.tls !== null) ||
      entry.url.protocol === 'tls:' ||
      entry.url.protocol === 'wss:';
    const jitter = tls ? o.reconnectJitterTLS : o.reconnectJitter;
    const wait = o.reconnectDelayHandler
      ? o.reconnectDelayHandler()
      : o.reconnectTimeWait + Math.random() * jitter;
    return Math.max(0, entry.lastAttempt + wait - Date.now());
  }

  #sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeSleeper = done;
    });
  }
}

function sameAuthError(previous: unknown, current: unknown): boolean {
  const isAuth = (e: unknown): e is NatsError =>
    e instanceof AuthorizationError || e instanceof UserAuthenticationExpiredError;
  return isAuth(previous) && isAuth(current) && previous.message === current.message;
}

function asError(error: unknown): Error | undefined {
  if (error === undefined) return undefined;
  return error instanceof Error ? error : new Error(String(error));
}
