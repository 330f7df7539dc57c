import { createServer, type Server, type Socket } from 'node:net';
import { type SecureContext, TLSSocket } from 'node:tls';
import { FrameWriter, type ServerInfo, serverId } from '@slipstream/protocol';
import type { Account } from './accounts/account.js';
import { Accounts } from './accounts/accounts.js';
import { ClaimsRefresh } from './accounts/claims-refresh.js';
import { serveClaimsUpdates } from './accounts/claims-updates.js';
import { infoApiLevel } from './api-level.js';
import { type ClientAuthenticator, clientAuthenticator } from './auth/client-authenticator.js';
import { newNonce } from './auth/nkey.js';
import { ClientConnection, type ClientHost } from './client-connection.js';
import { type CloseReason, ErrText, ServerError } from './errors.js';
import { InternalClient } from './internal-client.js';
import type { JetStreamServer } from './jetstream/jetstream-server.js';
import type { LeafNodes } from './leafnode/leaf-nodes.js';
import { listen } from './listen.js';
import { createConsoleLogger, type Logger } from './logger.js';
import { type ConnectionState, snapshotConnection } from './monitoring/connection-state.js';
import type { MonitoringServer } from './monitoring/http.js';
import type { MonitoredServer } from './monitoring/monitored-server.js';
import { SystemAccount } from './monitoring/system-account.js';
import { MsgTracer } from './msg-trace.js';
import { type ResolvedOptions, resolveOptions, type ServerOptions } from './options.js';
import { FlushQueue } from './outbound.js';
import type { Routes } from './route/routes.js';
import type { ServerIdentity } from './server-identity.js';
import { secureContextFor, secureContextOptions } from './tls/secure-context.js';
import { type FirstBytes, firstBytes } from './tls-sniff.js';
import type { TrafficStats } from './traffic-stats.js';
import { NATS_COMPATIBLE_VERSION, VERSION } from './version.js';
import { ViolationLog } from './violation-log.js';
import type { WebSocketListener } from './websocket-listener.js';

/** nats-server keeps this many closed connections for /connz?state=closed (DEFAULT_MAX_CLOSED_CLIENTS). */
const MAX_CLOSED_CONNECTIONS = 10_000;

/** A running server. */
export interface NatsServer {
  /** `nats://host:port` a client on this machine can dial (a wildcard listen address becomes 127.0.0.1). */
  readonly url: string;
  /** The interface listened on, as configured. */
  readonly host: string;
  /** The bound client port (the real one when port 0 was asked for). */
  readonly port: number;
  /** `http://host:port` (`https://` for httpsPort) of the monitoring endpoints, when a port was set. */
  readonly httpUrl: string | undefined;
  readonly httpPort: number | undefined;
  /** `ws://host:port` (or `wss://`) of the WebSocket listener, when one was configured. */
  readonly websocketUrl: string | undefined;
  readonly websocketPort: number | undefined;
  /** The bound leaf node port, when `leafNodes.port` was set. */
  readonly leafNodePort: number | undefined;
  /** The bound route port, when `cluster` was set. */
  readonly clusterPort: number | undefined;
  /** The server part of the INFO every client receives (server_id, server_name, version, …). */
  readonly info: Readonly<ServerInfo>;
  /** Resolves once the server has shut down (by close(), or at the end of lame duck mode). */
  readonly closed: Promise<void>;
  /** Stops accepting, closes every connection and the monitoring listener. Idempotent. */
  close(): Promise<void>;
  /**
   * Lame duck mode: stop accepting, tell clients (async INFO with `ldm: true`) so they reconnect
   * elsewhere, wait the grace period, close the clients spread over the rest of lameDuckDuration,
   * then shut down. Resolves when the server is closed.
   */
  lameDuck(): Promise<void>;
}

/** Starts a server and resolves once it accepts connections. */
export async function startServer(options: ServerOptions = {}): Promise<NatsServer> {
  const resolved = resolveOptions(options);
  await resolved.operator?.start();
  const logger = options.logger ?? createConsoleLogger();
  const server = new CoreServer(resolved, logger);
  await server.listen();
  return server;
}

class CoreServer implements NatsServer, ClientHost, MonitoredServer {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly accounts: Accounts;
  readonly flushQueue = new FlushQueue();
  readonly stats: TrafficStats = {
    inMsgs: 0,
    inBytes: 0,
    outMsgs: 0,
    outBytes: 0,
    slowConsumers: 0,
  };
  readonly authenticator: ClientAuthenticator | undefined;
  readonly violations: ViolationLog;
  readonly serverId = serverId();
  readonly startedAt = Date.now();
  readonly clients = new Map<number, ClientConnection>();
  readonly closedConnections: ConnectionState[] = [];
  readonly msgTracer = new MsgTracer(() => this.identity());
  totalConnections = 0;
  infoVersion = 0;
  info!: ServerInfo;
  closed: Promise<void>;

  readonly #listener: Server;
  readonly #sockets = new Set<Socket>();
  /**
   * allow_non_tls and handshake_first fallback sockets whose first byte has not come yet: no
   * client serves them so far.
   */
  readonly #sniffing = new Set<Socket>();
  #monitoring: MonitoringServer | undefined;
  #websocket: WebSocketListener | undefined;
  /** Leaf node connections (the leaf node port and the remotes), when configured. */
  leafNodes: LeafNodes | undefined;
  /** The routes to the other members of a cluster, when configured. */
  routes: Routes | undefined;
  /** JetStream, when enabled. */
  jetstream: JetStreamServer | undefined;
  /** JetStream's code, which listen() loads only when the options enable JetStream. */
  #jetStreamCode: typeof import('./jetstream-code.js') | undefined;
  /** The system account's events and requests, once the server listens. */
  #system: SystemAccount | undefined;
  /** The accounts answering every `$JS.API` request with 10039 (JetStream runs, not for them). */
  readonly #withoutJetStream = new Set<Account>();
  /** Operator mode: applies pushed account JWTs and expiring activations. */
  #claimsRefresh: ClaimsRefresh | undefined;
  readonly #secureContext: SecureContext | undefined;
  #nextCid = 1;
  #lameDuck: Promise<void> | undefined;
  #inLameDuck = false;
  /** Whether connect_urls ever named another member (nats-server then always sends the list). */
  #clusterUrlsOffered = false;
  /** The INFO JSON every client gets, without its closing brace; the client's own fields follow. */
  #infoHead: string | undefined;
  /** Ends the lame duck wait in progress, so close() does not leave its timer behind. */
  #cancelPause: (() => void) | undefined;
  #closing: Promise<void> | undefined;
  #resolveClosed!: () => void;

  constructor(options: ResolvedOptions, logger: Logger) {
    this.options = options;
    this.logger = logger;
    this.violations = new ViolationLog(logger);
    this.accounts = new Accounts(
      options.accounts,
      options.systemAccount,
      options.mappings,
      this.serverId,
    );
    this.authenticator = clientAuthenticator(options, this.accounts, () => this.accountsAdded());
    this.#secureContext = options.tls && secureContextFor(options.tls);
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#listener = createServer({ noDelay: true }, (socket) => this.#accept(socket));
  }

  get host(): string {
    return this.options.host;
  }

  get port(): number {
    return this.info.port;
  }

  get url(): string {
    return `nats://${dialable(this.options.host)}:${this.port}`;
  }

  get websocketPort(): number | undefined {
    return this.#websocket?.port;
  }

  get websocketUrl(): string | undefined {
    const ws = this.options.websocket;
    const port = this.#websocket?.port;
    if (!ws || port === undefined) return undefined;
    return `${ws.tls ? 'wss' : 'ws'}://${dialable(ws.host)}:${port}`;
  }

  get leafNodePort(): number | undefined {
    return this.leafNodes?.port;
  }

  get clusterPort(): number | undefined {
    return this.routes?.port;
  }

  get httpPort(): number | undefined {
    return this.#monitoring?.port;
  }

  get httpUrl(): string | undefined {
    const port = this.#monitoring?.port;
    if (port === undefined) return undefined;
    const scheme = this.options.httpsMonitoring ? 'https' : 'http';
    return `${scheme}://${dialable(this.options.httpHost)}:${port}`;
  }

  identity(): ServerIdentity {
    return {
      name: this.info.server_name ?? this.serverId,
      host: this.options.host,
      id: this.serverId,
      jetstream: this.jetstream !== undefined,
    };
  }

  // JetStream, monitoring and WebSocket code is imported here, and only when the options use it:
  // loading it (zod schemas, SQLite, ws) took most of the time from spawn to the first INFO.
  async listen(): Promise<void> {
    const { host, port } = this.options;
    // Before the port opens, so that JetStream answers the first client's $JS.API requests.
    if (this.options.jetstream) this.#jetStreamCode = await import('./jetstream-code.js');
    let boundPort: number;
    try {
      boundPort = await listen(this.#listener, host, port);
    } catch (error) {
      throw listenFailed(`${host}:${port}`, error as Error);
    }
    this.#listener.on('error', (error) =>
      this.logger.error(`Client listener error: ${error.message}`),
    );
    this.info = {
      server_id: this.serverId,
      server_name: this.options.serverName ?? this.serverId,
      version: NATS_COMPATIBLE_VERSION,
      proto: 1,
      go: `node${process.version}`,
      host,
      port: boundPort,
      headers: true,
      ...(this.authenticator ? { auth_required: true } : {}),
      ...(this.options.tls
        ? { [this.options.allowNonTls ? 'tls_available' : 'tls_required']: true }
        : {}),
      ...(this.options.tls?.verify ? { tls_verify: true } : {}),
      max_payload: this.options.maxPayload,
      ...(this.options.jetstream ? { jetstream: true } : {}),
      ...infoApiLevel(),
    } as ServerInfo;
    if (this.options.httpPort !== undefined) {
      try {
        const { startMonitoring } = await import('./monitoring/http.js');
        this.#monitoring = await startMonitoring(
          this,
          this.options.httpHost,
          this.options.httpPort,
          this.options.httpsMonitoring ? secureContextOptions(this.options.tls!) : undefined,
        );
      } catch (error) {
        this.#listener.close();
        throw listenFailed(`${this.options.httpHost}:${this.options.httpPort}`, error as Error);
      }
    }
    const ws = this.options.websocket;
    if (ws) {
      try {
        const { startWebSocketListener } = await import('./websocket-listener.js');
        this.#websocket = await startWebSocketListener(
          ws,
          (socket, leaf) =>
            leaf ? this.#acceptWebSocketLeaf(socket) : this.#accept(socket, { webSocket: true }),
          (label, message) => this.violations.report(label, message),
        );
      } catch (error) {
        this.#listener.close();
        await this.#monitoring?.close();
        throw listenFailed(`${ws.host}:${ws.port}`, error as Error);
      }
    }
    this.#logStartup();
    await this.#startLeafNodes();
    await this.#startRoutes();
  }

  async #startRoutes(): Promise<void> {
    const options = this.options.cluster;
    if (!options) return;
    const [{ Routes }, { importClusterJetStream }] = await Promise.all([
      import('./route/routes.js'),
      import('./route/jetstream-mixed-mode.js'),
    ]);
    // A member runs no JetStream (options refuse it): the cluster's other members answer.
    importClusterJetStream(this.accounts, options.name);
    this.routes = new Routes(this, options);
    try {
      await this.routes.start();
    } catch (error) {
      await this.close();
      throw listenFailed(`${options.host ?? this.options.host}:${options.port}`, error as Error);
    }
  }

  /**
   * The other members' client URLs changed (a route came or went): clients that understand an
   * async INFO get the new list, as nats-server sends it.
   */
  connectUrlsChanged(): void {
    if ((this.routes?.memberClientUrls().length ?? 0) > 0) this.#clusterUrlsOffered = true;
    this.infoVersion++;
    this.#infoHead = undefined;
    for (const client of this.clients.values()) {
      client.sendInfo(this.infoFor(client.cid, client.ip));
    }
  }

  /**
   * connect_urls of the client INFO: ours first, then the other members', once there have been
   * any (a member left alone then offers itself, so clients drop the ones that left); in lame
   * duck mode the other members' only, as nats-server's sendLDMToClients.
   */
  #connectUrls(): { connect_urls?: string[] } {
    const members = this.routes?.memberClientUrls() ?? [];
    if (members.length === 0 && !this.#clusterUrlsOffered) return {};
    const own = this.#inLameDuck ? [] : this.routes!.ownClientUrls();
    return { connect_urls: [...new Set([...own, ...members])] };
  }

  async #startLeafNodes(): Promise<void> {
    const options = this.options.leafNodes;
    if (!options) return;
    const { LeafNodes } = await import('./leafnode/leaf-nodes.js');
    this.leafNodes = new LeafNodes(this, options, this.authenticator);
    try {
      await this.leafNodes.start();
    } catch (error) {
      await this.close();
      throw listenFailed(`${options.host ?? this.options.host}:${options.port}`, error as Error);
    }
  }

  /**
   * A leaf node through the WebSocket port (its upgrade asked for `/leafnode`): served as one
   * when leaf nodes are configured, else closed.
   */
  #acceptWebSocketLeaf(socket: Socket): void {
    if (this.leafNodes) this.leafNodes.acceptWebSocket(socket);
    else {
      this.logger.error(
        `${socket.remoteAddress} - leafnode over websocket refused: no leafnodes configured`,
      );
      socket.destroy();
    }
  }

  /** A fresh connection id, shared by clients and leaf connections as nats-server's cids. */
  newCid(): number {
    return this.#nextCid++;
  }

  /** A client finished CONNECT. */
  clientConnected(client: ClientConnection): void {
    this.#system?.connected(client);
  }

  #startJetStream(): void {
    const options = this.options.jetstream;
    const code = this.#jetStreamCode;
    if (!options || !code) return;
    const enabled = [...this.accounts.jetStream].map(([name, limits]) => ({
      name,
      limits,
      client: this.internalClient(this.accounts.get(name)),
    }));
    this.jetstream = new code.JetStreamServer(options, this.logger, this.identity().name, enabled);
    this.jetstream.start();
    for (const account of this.accounts.values()) {
      if (!this.accounts.jetStream.has(account.name)) this.#answerJetStreamDisabled(account);
    }
  }

  #answerJetStreamDisabled(account: Account): void {
    this.#withoutJetStream.add(account);
    this.#jetStreamCode?.answerJetStreamDisabled(this.internalClient(account));
  }

  /**
   * Operator mode: accounts a resolver added while the server runs get JetStream (with their
   * claims' limits) or its disabled answers, as the accounts at the start did, and in a cluster
   * the routes' interest in them.
   */
  accountsAdded(): void {
    this.routes?.accountsAdded();
    const jetstream = this.jetstream;
    if (!jetstream) return;
    for (const account of this.accounts.values()) {
      const limits = this.accounts.jetStream.get(account.name);
      if (limits && !jetstream.accounts.has(account.name)) {
        jetstream.enable({ name: account.name, limits, client: this.internalClient(account) });
      } else if (!limits && !this.#withoutJetStream.has(account)) {
        this.#answerJetStreamDisabled(account);
      }
    }
  }

  /**
   * The INFO for client `cid`. `tlsFirst`: it did the handshake before any INFO (handshake_first),
   * so it is told TLS is required even under allow_non_tls, as nats-server 2.10.4+ does (its
   * INFO then says tls_required and tls_available both).
   */
  infoFor(cid: number, ip: string, nonce?: string, tlsFirst = false): string {
    // Encoded once, not per connection: thousands of clients reconnecting at once are greeted
    // by an accept loop that must keep up with the kernel's queue.
    this.#infoHead ??= JSON.stringify({
      ...this.info,
      ...(this.options.cluster ? { cluster: this.routes?.name ?? this.options.cluster.name } : {}),
      ...this.#connectUrls(),
      ...(this.#inLameDuck ? { ldm: true } : {}),
    }).slice(0, -1);
    const client = `"client_id":${cid},"client_ip":${JSON.stringify(ip)}`;
    const required = tlsFirst && this.options.allowNonTls ? ',"tls_required":true' : '';
    return `${this.#infoHead},${client}${required}${nonce === undefined ? '' : `,"nonce":"${nonce}"`}}`;
  }

  connectionClosed(client: ClientConnection, reason: CloseReason): void {
    this.clients.delete(client.cid);
    this.#system?.disconnected(client);
    if (this.options.debug) {
      this.logger.debug(`${client.label} - Client connection closed: ${reason}`);
    }
    if (this.closedConnections.length >= MAX_CLOSED_CONNECTIONS) this.closedConnections.shift();
    this.closedConnections.push(snapshotConnection(client));
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  lameDuck(): Promise<void> {
    this.#lameDuck ??= this.#runLameDuck();
    return this.#lameDuck;
  }

  /** A new client of the server itself (JetStream, system events) in `account`'s subject space. */
  internalClient(account = this.accounts.global): InternalClient {
    return new InternalClient(this.#nextCid++, account.router);
  }

  #accept(socket: Socket, { webSocket = false } = {}): void {
    // A connection that raced the listener's close is not served, nor one whose peer reset it
    // before we got here (no remote address): wrapping such a socket in TLS crashes Node.
    if (this.#closing || socket.destroyed || socket.remoteAddress === undefined) {
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    const cid = this.#nextCid++;
    const full = this.clients.size >= this.options.maxConnections;
    // Nkey users sign this connection's nonce, so a signature seen elsewhere cannot be replayed.
    const nonce = this.authenticator?.nonceRequired ? newNonce() : undefined;
    if (webSocket) {
      // The WebSocket listener did any TLS already. The INFO is the client port's, TLS fields
      // included, as nats-server 2.9.10 sends it.
      this.#serve(cid, socket, nonce, { sendInfo: true, full, webSocket });
      return;
    }
    if (this.#secureContext && !full) {
      void this.#serveTls(cid, socket, nonce);
      return;
    }
    this.#serve(cid, socket, nonce, { sendInfo: true, full });
  }

  /** Starts serving an accepted connection; `full` turns it away once INFO has gone out. */
  #serve(
    cid: number,
    socket: Socket,
    nonce: string | undefined,
    { sendInfo = false, full = false, webSocket = false, tlsFirst = false } = {},
  ): void {
    const client = new ClientConnection(cid, socket, this, nonce);
    if (!full) {
      this.clients.set(cid, client);
      this.totalConnections++;
      this.#system?.accepted(client);
    }
    if (this.options.debug) {
      this.logger.debug(`${client.label} - Client connection created`);
    }
    // verify_and_map is the client port's: the WebSocket listener has its own TLS.
    client.start({
      sendInfo,
      mapCertificate: !webSocket && !!this.options.tls?.verifyAndMap,
      tlsFirst,
    });
    // nats-server sends INFO, then the error, then closes.
    if (full) client.close('Maximum Connections Exceeded', ErrText.maxConnections);
  }

  /**
   * TLS as NATS does it: INFO goes out in the clear (announcing tls_required), then the client
   * starts the handshake and everything after, CONNECT included, is encrypted. handshake_first
   * turns that round: the handshake comes first and INFO after it, encrypted; with a fallback
   * delay, a client that has not started its handshake by then is greeted the usual way. With
   * allow_non_tls, the client's first byte says whether it starts TLS or speaks plain.
   */
  async #serveTls(cid: number, socket: Socket, nonce: string | undefined): Promise<void> {
    const { handshakeFirst, handshakeFirstFallback, timeout } = this.options.tls!;
    if (handshakeFirst) {
      // As nats-server, any byte within the fallback delay is taken for a handshake.
      const first =
        handshakeFirstFallback > 0 ? await this.#sniff(socket, handshakeFirstFallback) : 'tls';
      if (first === undefined) return;
      if (first !== 'none') {
        this.#serve(cid, this.#tlsSocket(socket), nonce, { sendInfo: true, tlsFirst: true });
        return;
      }
    }
    this.#sendInfoInTheClear(cid, socket, nonce);
    if (!this.options.allowNonTls) {
      this.#serve(cid, this.#tlsSocket(socket), nonce);
      return;
    }
    const first = await this.#sniff(socket, timeout);
    if (first === undefined) return;
    const secure = first === 'tls';
    this.#serve(cid, secure ? this.#tlsSocket(socket) : socket, nonce);
    if (!secure) socket.resume();
  }

  /** {@link firstBytes}; undefined when the server closed or the client left meanwhile. */
  async #sniff(socket: Socket, timeoutMs: number): Promise<FirstBytes | undefined> {
    this.#sniffing.add(socket);
    const first = await firstBytes(socket, timeoutMs);
    this.#sniffing.delete(socket);
    return this.#closing || socket.destroyed ? undefined : first;
  }

  #sendInfoInTheClear(cid: number, socket: Socket, nonce: string | undefined): void {
    const writer = new FrameWriter(512);
    writer.info(this.infoFor(cid, socket.remoteAddress ?? '', nonce));
    socket.write(writer.take());
  }

  #tlsSocket(socket: Socket): TLSSocket {
    const verify = this.options.tls!.verify;
    return new TLSSocket(socket, {
      isServer: true,
      secureContext: this.#secureContext,
      requestCert: verify,
      rejectUnauthorized: verify,
    });
  }

  async #runLameDuck(): Promise<void> {
    const { lameDuckDuration, lameDuckGracePeriod } = this.options;
    this.logger.info('Entering lame duck mode, stop accepting new clients');
    this.#inLameDuck = true;
    this.#infoHead = undefined;
    this.routes?.lameDuck();
    const listenerClosed = new Promise<void>((resolve) => this.#listener.close(() => resolve()));
    for (const client of this.clients.values())
      client.sendInfo(this.infoFor(client.cid, client.ip));
    await this.#pause(lameDuckGracePeriod);
    const clients = [...this.clients.values()];
    if (clients.length > 0) this.logger.info('Closing existing clients');
    // Spread the closes over what is left of the duration, as nats-server does: at least one
    // interval per client up to 1 s, each wait random between half and all of it.
    const rest = lameDuckDuration - lameDuckGracePeriod;
    const spread = rest > 0 ? rest : 1_000;
    const interval = Math.min(spread / Math.max(clients.length, 1), 1_000);
    const batch = interval < 1 ? Math.ceil(clients.length / spread) : 1;
    for (let i = 0; i < clients.length; i++) {
      clients[i]!.close('Server Shutdown');
      if (i < clients.length - 1 && i % batch === 0) {
        await this.#pause(Math.max(interval / 2, Math.random() * interval));
      }
    }
    await listenerClosed;
    await this.close();
  }

  #pause(ms: number): Promise<void> {
    if (this.#closing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#cancelPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #shutdown(): Promise<void> {
    this.logger.info('Initiating Shutdown...');
    this.#cancelPause?.();
    this.#system?.shutdown();
    const listenerClosed = new Promise<void>((resolve) => this.#listener.close(() => resolve()));
    for (const client of [...this.clients.values()]) client.close('Server Shutdown');
    for (const socket of this.#sniffing) socket.destroy();
    const socketsClosed = [...this.#sockets].map(
      (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
    );
    await Promise.all([
      listenerClosed,
      ...socketsClosed,
      this.#monitoring?.close(),
      this.#websocket?.close(),
      this.leafNodes?.close(),
      this.routes?.close(),
    ]);
    await this.jetstream?.close();
    this.#system?.close();
    this.#claimsRefresh?.close();
    this.accounts.close();
    this.violations.flush();
    this.logger.info('Server Exiting..');
    this.#resolveClosed();
  }

  #logStartup(): void {
    const log = this.logger;
    log.info(`Starting slipstream-server`);
    log.info(`  Version:  ${VERSION} (nats-server ${NATS_COMPATIBLE_VERSION} compatible)`);
    log.info(`  Name:     ${this.info.server_name}`);
    log.info(`  ID:       ${this.serverId}`);
    this.#startJetStream();
    // One internal client serves the system account's events and the claims updates, and
    // closing the system account drops both at shutdown.
    const systemClient = this.internalClient(this.accounts.system);
    const system = new SystemAccount(this, systemClient);
    this.#system = system;
    if (this.options.operator) {
      const refresh = new ClaimsRefresh(this, this.options.operator);
      this.#claimsRefresh = refresh;
      serveClaimsUpdates(
        systemClient,
        this.options.operator,
        (to, body) => system.reply(to, body),
        (account) => refresh.accountChanged(account),
      );
    }
    if (this.#monitoring) {
      const scheme = this.options.httpsMonitoring ? 'https' : 'http';
      log.info(`Starting ${scheme} monitor on ${this.options.httpHost}:${this.#monitoring.port}`);
    }
    if (this.websocketUrl) log.info(`Listening for websocket clients on ${this.websocketUrl}`);
    log.info(`Listening for client connections on ${this.options.host}:${this.port}`);
    if (this.options.debug) log.debug('Debug logging enabled');
    if (this.options.trace) log.info('Trace logging enabled');
    log.info('Server is ready');
  }
}

/**
 * An internal client of a server this package started. For the package's own parts (JetStream)
 * and tests; not exported from the package.
 */
export function internalClientOf(server: NatsServer): InternalClient {
  if (!(server instanceof CoreServer)) throw new TypeError('not a server started by startServer');
  return server.internalClient();
}

function dialable(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function listenFailed(address: string, error: Error): ServerError {
  return new ServerError('LISTEN_FAILED', `cannot listen on ${address}: ${error.message}`, {
    cause: error,
  });
}
