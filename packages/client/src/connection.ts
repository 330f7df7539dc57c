import {
  encodeUtf8,
  FrameWriter,
  isValidPublishSubject,
  type MsgHdrsImpl,
  type ServerInfo,
} from '@slipstream/protocol';
import { type Transport, type TransportConnection, TransportError } from '@slipstream/transport';
import {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  InvalidArgumentError,
  InvalidSubjectError,
  MaxPayloadExceededError,
  NatsError,
  PermissionViolationError,
  type SlowConsumerError,
  TimeoutError,
  UserAuthenticationExpiredError,
} from './errors.js';
import { type ResolvedOptions, resolveOptions } from './options.js';
import { Outbox } from './outbox.js';
import { Requester } from './requester.js';
import { type ServerEntry, ServerPool } from './servers.js';
import { type MessageFrame, type PongWaiter, Session, type SessionHost } from './session.js';
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

/** An empty payload, shared. */
export const Empty: Uint8Array = new Uint8Array(0);

/**
 * Where the connection is in its life. `connecting` covers the first connect and every
 * reconnect: opening a socket, shaking hands on it (then `session` is that socket's), or waiting
 * before the next attempt. A stale callback from an old socket fails one test: its session is
 * not the one held here.
 */
type ConnectionState =
  | { readonly kind: 'connecting'; readonly session: Session | undefined }
  | { readonly kind: 'connected'; readonly session: Session }
  | { readonly kind: 'closed' };

const BETWEEN_ATTEMPTS: ConnectionState = Object.freeze({ kind: 'connecting', session: undefined });
const CLOSED: ConnectionState = Object.freeze({ kind: 'closed' });

/**
 * One client connection: what outlives its sockets (subscriptions, the outbox that is also the
 * reconnect buffer, flushes waiting for a socket, status events) and the reconnect loop that
 * replaces a lost socket's session (session.ts) with a new one.
 */
export class NatsConnectionImpl implements NatsConnection {
  info: ServerInfo | undefined;

  readonly #options: ResolvedOptions;
  readonly #transport: Transport;
  readonly #pool: ServerPool;
  #state: ConnectionState = BETWEEN_ATTEMPTS;
  /** host:port of the latest socket's server, kept once it closed (getServer(), status events). */
  #serverName = '';
  #draining = false;
  /** Set by drain once every subscription is drained, before the final flush (as nats.js). */
  #noMorePublishing = false;

  readonly #outbox: Outbox;
  /** The connection as its sessions see it. */
  readonly #sessionHost: SessionHost;
  /** The last subject publish accepted: a hot publish loop checks its subject once. */
  #lastValidSubject: string | undefined;
  #maxPayload = 1024 * 1024;
  #headersOn: boolean;

  readonly #subs: Subscriptions;
  readonly #requester: Requester;

  /** flush() calls made while disconnected, sent once a socket is up again. */
  #deferredPongs: PongWaiter[] = [];
  #wakeSleeper: (() => void) | undefined;

  readonly #status: StatusEvents;
  readonly #stats: Stats = { inBytes: 0, outBytes: 0, inMsgs: 0, outMsgs: 0, reconnects: 0 };
  readonly #closed: Promise<Error | undefined>;
  #resolveClosed!: (value: Error | undefined) => void;

  private constructor(options: ConnectionOptions & { transport: Transport }) {
    this.#options = resolveOptions(options);
    this.#transport = this.#options.transport;
    this.#headersOn = this.#options.headers;
    this.#status = new StatusEvents(this.#options.debug);
    this.#subs = new Subscriptions(this.#subscriptionHost);
    this.#outbox = new Outbox(this.#options);
    this.#sessionHost = {
      options: this.#options,
      outbox: this.#outbox,
      headersOn: () => this.#headersOn,
      message: (frame) => this.#deliver(frame),
      info: (info, from) => this.#onInfo(info, from),
      serverError: (error) => this.#onServerError(error),
      lost: (session, error) => this.#onSessionLost(session, error),
      emit: (status) => this.#status.emit(status),
    };
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
    const outbox = this.#outbox;
    outbox.reserve(size);
    outbox.writer.pub(subject, reply, data, headers);
    this.#stats.outMsgs++;
    this.#stats.outBytes += size;
    outbox.written();
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
    if (this.#state.kind === 'connected') {
      const writer = this.#outbox.writer;
      writer.sub(subject, sub.sid, sub.queue);
      if (sub.max !== undefined && sub.max > 0) writer.unsub(sub.sid, sub.max);
      this.#outbox.schedule();
    }
    return sub;
  }

  /** The connection as its subscriptions and messages see it. */
  readonly #subscriptionHost = {
    publish: (subject: string, payload?: Payload, options?: PublishOptions) =>
      this.publish(subject, payload, options),
    unsubscribeWire: (sid: number, max?: number) => {
      if (this.#state.kind !== 'connected') return; // resubscription after reconnect covers it
      this.#outbox.writer.unsub(sid, max);
      this.#outbox.schedule();
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
    const state = this.#state;
    if (state.kind === 'closed') return Promise.reject(new ClosedConnectionError());
    return new Promise((resolve, reject) => {
      const waiter: PongWaiter = (error) => (error ? reject(error) : resolve());
      if (state.kind === 'connected') {
        state.session.ping(waiter);
        this.#outbox.writeNow();
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
    return this.#status.listen(this.isClosed());
  }

  getServer(): string {
    return this.#serverName;
  }

  isClosed(): boolean {
    return this.#state.kind === 'closed';
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
    const state = this.#state;
    if (state.kind !== 'connected') return;
    this.#status.emit({ type: 'forceReconnect' });
    await state.session.close();
  }

  async #close(error: Error | undefined): Promise<void> {
    const state = this.#state;
    if (state.kind === 'closed') {
      await this.#closed;
      return;
    }
    this.#state = CLOSED;
    this.#wakeSleeper?.();
    const session = state.session;
    if (session) {
      if (state.kind === 'connected') this.#outbox.sendRest();
      this.#outbox.detach();
      // A handshake under way fails with ClosedConnectionError.
      await session.close();
    }
    const closedError = new ClosedConnectionError();
    const waiters = [...(session?.takeWaiters() ?? []), ...this.#deferredPongs];
    this.#deferredPongs = [];
    for (const waiter of waiters) waiter(closedError);
    this.#requester.failAll(closedError);
    for (const sub of this.#subs.all()) sub.fail(undefined);
    this.#status.emit(error ? { type: 'close', error } : { type: 'close' });
    this.#status.end();
    this.#resolveClosed(error);
  }

  #assertOpen(): void {
    if (this.isClosed()) throw new ClosedConnectionError();
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
      const connected = new Promise<void>((resolve, reject) => {
        void this.#reconnectLoop(lastError, resolve, reject);
      });
      await connected;
      return;
    }
    this.#state = CLOSED;
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
    if (this.isClosed()) {
      await conn.close();
      throw new ClosedConnectionError();
    }
    const session = new Session(conn, entry, this.#sessionHost, this.#maxPayload);
    this.#state = { kind: 'connecting', session };
    this.#serverName = entry.hostport;
    try {
      await session.handshake(deadline);
    } catch (error) {
      if (this.#state.kind === 'connecting' && this.#state.session === session) {
        this.#state = BETWEEN_ATTEMPTS;
      }
      await session.close(asError(error));
      throw error;
    }
    this.#onConnected(session);
  }

  #onConnected(session: Session): void {
    this.#state = { kind: 'connected', session };
    session.start();
    const entry = session.server;
    entry.failures = 0;
    entry.didConnect = true;
    entry.encrypted = session.encrypted;
    // Subscriptions first, then what was published while disconnected, then deferred flushes.
    const resubscribe = new FrameWriter(1024);
    this.#subs.resubscribe(resubscribe);
    if (resubscribe.length > 0) session.send(resubscribe.take());
    for (const waiter of this.#deferredPongs) session.ping(waiter);
    this.#deferredPongs = [];
    this.#outbox.writeNow();
  }

  #deliver(frame: MessageFrame): void {
    this.#stats.inMsgs++;
    this.#stats.inBytes +=
      frame.headers === undefined
        ? frame.payload.length
        : frame.payload.length + frame.headers.length;
    this.#subs.get(frame.sid)?.deliver(frame.subject, frame.reply, frame.headers, frame.payload);
  }

  #onInfo(info: ServerInfo, from: Session): void {
    this.info = info;
    if (info.max_payload > 0) this.#maxPayload = info.max_payload;
    if (info.headers === false) this.#headersOn = false;
    if (!this.#options.ignoreClusterUpdates) {
      const urls = this.#transport.name === 'websocket' ? info.ws_connect_urls : info.connect_urls;
      if (urls && urls.length > 0) {
        const { added, deleted } = this.#pool.update(urls, from.server);
        if (added.length > 0 || deleted.length > 0)
          this.#status.emit({ type: 'update', added, deleted });
      }
    }
    if (info.ldm && !from.handshaking) this.#status.emit({ type: 'ldm', server: this.getServer() });
  }

  #onServerError(error: NatsError): void {
    if (error instanceof PermissionViolationError) {
      if (error.operation === 'subscription') this.#subs.failRefused(error);
      // A refused request fails now rather than at its timeout, as in nats.js.
      else if (!this.#requester.failSubject(error.subject, error)) this.#subs.failRequest(error);
    }
    this.#status.emit({ type: 'error', error });
  }

  // ---- losing and regaining the server ----------------------------------------------------

  #onSessionLost(session: Session, error: Error | undefined): void {
    if (this.#state.kind !== 'connected' || this.#state.session !== session) return;
    this.#state = BETWEEN_ATTEMPTS;
    this.#outbox.detach();
    // User flushes wait for the next socket; keep-alive pings die with this one.
    this.#deferredPongs.push(...session.takeWaiters());
    const server = this.getServer();
    this.#status.emit({ type: 'disconnect', server });
    if (!this.#options.reconnect || this.#draining) {
      void this.#close(error ?? new ConnectionError(`disconnected from ${server}`));
      return;
    }
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
      if (this.isClosed()) return;
      const entry = this.#pool.next(this.#options.maxReconnectAttempts);
      if (!entry) {
        const error = new ConnectionError('no server left to reconnect to', { cause: lastError });
        onGiveUp?.(error);
        await this.#close(error);
        return;
      }
      await this.#sleep(this.#reconnectDelay(entry));
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
